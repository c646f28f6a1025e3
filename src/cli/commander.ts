/**
 * commander, loaded with `require`. Imported from an ES module, Node reaches this CommonJS
 * package through its ESM wrapper and a scan of its exports: that cost twice what `require`
 * does and was the largest part of `remote-browser --help` over a bare `node -e 0` (issue 14,
 * P6; `npx tsx bench/cli-help.ts`). The types are the package's own.
 */
import type * as Commander from 'commander';
import { nodeModule } from '../http/node-builtins.js';

const commander = nodeModule().createRequire(import.meta.url)('commander') as typeof Commander;

export const Command = commander.Command;
export type Command = Commander.Command;
export const CommanderError = commander.CommanderError;
export type CommanderError = Commander.CommanderError;
export const InvalidArgumentError = commander.InvalidArgumentError;
