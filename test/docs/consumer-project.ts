/**
 * A user's project outside this repository: its own folder with `"type": "module"`, a
 * `node_modules/remote-browser` symlink to the repo root (so imports go through the package's
 * `exports` to the built dist/, as they do after `npm i remote-browser`), and the repo's other
 * dependencies linked beside it. Type-checks with the settings a careful user has (strict,
 * noUncheckedIndexedAccess, nodenext) through the TypeScript compiler API.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');

export const CONSUMER_COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts', 'lib.esnext.disposable.d.ts', 'lib.dom.d.ts'],
  types: ['node'],
  skipLibCheck: true,
  noEmit: true,
};

export interface ConsumerProject {
  readonly dir: string;
  /** Writes a file (folders created) and returns its absolute path. */
  write(name: string, text: string): string;
  /** Type-checks `files` as one program; each diagnostic as `file:line: TSnnnn message`. */
  typecheck(files: string[]): string[];
  remove(): void;
}

export function createConsumerProject(prefix = 'rb-consumer-'): ConsumerProject {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name.startsWith('.') || name === 'remote-browser') continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'junction');
  }
  symlinkSync(ROOT, join(modules, 'remote-browser'), 'junction');
  writeFileSync(join(dir, 'package.json'), '{ "name": "consumer", "type": "module" }\n');

  return {
    dir,
    write(name, text) {
      const file = join(dir, name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    typecheck(files) {
      const program = ts.createProgram({ rootNames: files, options: CONSUMER_COMPILER_OPTIONS });
      return ts.getPreEmitDiagnostics(program).map((d) => {
        const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
        if (!d.file || d.start === undefined) return `TS${d.code} ${text}`;
        const { line } = d.file.getLineAndCharacterOfPosition(d.start);
        return `${relative(dir, d.file.fileName)}:${line + 1}: TS${d.code} ${text}`;
      });
    },
    remove() {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}
