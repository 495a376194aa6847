import { parseCommandLine, usage, UsageError } from './command-line.ts';
import { buildInfo } from '../platform/build-info.ts';

/**
 * The CLI's entry: parses the command line and checks every option first, answers --help and --version from what it
 * loaded for that (the table of commands, package.json and .git), and only then loads the code of the command that
 * runs (cli/main.ts: the database, Prisma, the network data…), which takes seconds where --help takes a blink.
 */
async function run(argv: string[]): Promise<number> {
  const line = parseCommandLine(argv);
  if (line.help) {
    console.log(usage(line.command));
    return 0;
  }
  if (line.command === 'version') {
    const { version, commit } = buildInfo();
    console.log(line.args.json ? JSON.stringify({ version, commit }) : `risk-api ${version} (commit ${commit})`);
    return 0;
  }
  const { main } = await import('./main.ts');
  return main(line.command, line.args);
}

run(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  async (e) => {
    if (e instanceof UsageError) {
      console.error(`error: ${e.message}\n\n${e.command ? usage(e.command) : 'risk-api --help lists the commands.'}`);
      process.exit(2);
    }
    (await import('./main.ts')).reportFailure(e);
    process.exit(1);
  },
);
