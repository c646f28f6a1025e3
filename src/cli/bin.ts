console.error('remote-browser: the CLI is not implemented yet');
process.exitCode = 1;
