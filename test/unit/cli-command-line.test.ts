/** The CLI's command table: what the usage shows is what the parser takes, and every command it names runs. */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS, parseCommandLine, synopsis, usage, UsageError } from '../../src/cli/command-line.ts';
import { COMMAND_NAMES } from '../../src/transport/admin/commands.ts';

/** A valid value for each placeholder whose option is checked before the command runs; others get `v-PLACEHOLDER`. */
const VALID: Record<string, string> = {
  W: '0.5',
  'plain|csv': 'csv',
  URL: 'https://feeds.example/list.txt',
  INTERVAL: '1h',
  PORT: '8089',
};

/** What an operator types after reading a printed usage line: brackets dropped, each placeholder filled in. */
function typedFrom(line: string): { command: string; argv: string[]; expected: Record<string, string | boolean> } {
  const tokens = line.replace(/[[\]]/g, '').split(' ').slice(1); // "risk-api" dropped
  const words: string[] = [];
  while (tokens[0] && /^[a-z][a-z-]*$/.test(tokens[0])) words.push(tokens.shift()!);
  const argv = [...words];
  const expected: Record<string, string | boolean> = {};
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!t.startsWith('--')) {
      argv.push(`a-${t}`);
      expected[t.toLowerCase()] = `a-${t}`;
      continue;
    }
    const value = tokens[i + 1] !== undefined && !tokens[i + 1]!.startsWith('--') ? tokens[++i] : undefined;
    argv.push(t);
    if (value) {
      const typed = VALID[value] ?? `v-${value}`;
      argv.push(typed);
      expected[t.slice(2)] = typed;
    } else expected[t.slice(2)] = true;
  }
  return { command: words.join(' '), argv, expected };
}

const problem = (argv: string[]) => {
  try {
    parseCommandLine(argv);
  } catch (e) {
    if (e instanceof UsageError) return { message: e.message, usage: e.command };
    throw e;
  }
  throw new Error(`${argv.join(' ')} parsed`);
};

describe('risk-api command line', () => {
  it('parses every usage line as it is printed, positionals under their names', () => {
    const printed = usage()
      .split('\n')
      .filter((l) => l.startsWith('  risk-api '))
      .map((l) => l.trim());
    expect(printed.length).toBe(Object.keys(COMMANDS).length);
    for (const line of printed) {
      const { command, argv, expected } = typedFrom(line);
      expect(parseCommandLine(argv), line).toEqual({ help: false, command, args: expected });
    }
  });

  it('reads `keys revoke PREFIX` and `workspaces set-tier WORKSPACE TIER` positionally, as the usage shows', () => {
    expect(synopsis('keys revoke')).toBe('risk-api keys revoke PREFIX [--json]');
    expect(parseCommandLine(['keys', 'revoke', 'rk_abcdefgh'])).toEqual({
      help: false,
      command: 'keys revoke',
      args: { prefix: 'rk_abcdefgh' },
    });
    expect(parseCommandLine(['workspaces', 'set-tier', 'acme', 'startup', '--json'])).toEqual({
      help: false,
      command: 'workspaces set-tier',
      args: { workspace: 'acme', tier: 'startup', json: true },
    });
  });

  it('names what is wrong: an unknown command, a missing or extra argument, an unknown option, a value missing', () => {
    expect(problem([])).toEqual({ message: 'no command given', usage: undefined });
    expect(problem(['frobnicate'])).toEqual({ message: 'unknown command "frobnicate"', usage: undefined });
    expect(problem(['keys', 'frob'])).toEqual({
      message: 'unknown command "keys frob"; the keys commands are: create, list, revoke',
      usage: 'keys',
    });
    expect(problem(['feeds'])).toEqual({
      message: '"feeds" needs a command: import, add, fetch, list, remove',
      usage: 'feeds',
    });
    expect(problem(['keys', 'revoke'])).toEqual({ message: 'missing PREFIX', usage: 'keys revoke' });
    expect(problem(['keys', 'revoke', 'a', 'b'])).toEqual({ message: 'unexpected argument "b"', usage: 'keys revoke' });
    expect(problem(['keys', 'create', '--name', 'x'])).toEqual({
      message: 'missing --workspace NAME',
      usage: 'keys create',
    });
    expect(problem(['feeds', 'import', '--name', 'x'])).toEqual({ message: 'missing FILE', usage: 'feeds import' });
    expect(problem(['keys', 'list', '--tier', 'x'])).toEqual({ message: 'unknown option --tier', usage: 'keys list' });
    expect(problem(['keys', 'create', '--workspace'])).toEqual({
      message: '--workspace needs a value (NAME)',
      usage: 'keys create',
    });
    expect(problem(['keys', 'list', '--json=yes'])).toEqual({ message: '--json takes no value', usage: 'keys list' });
  });

  it('prints help for everything, for a group and for one command', () => {
    expect(parseCommandLine(['--help'])).toEqual({ help: true });
    expect(parseCommandLine(['keys', 'revoke', '--help'])).toEqual({ help: true, command: 'keys revoke' });
    expect(
      usage('keys')
        .split('\n')
        .filter((l) => l.startsWith('  risk-api')),
    ).toEqual([synopsis('keys create'), synopsis('keys list'), synopsis('keys revoke')].map((l) => `  ${l}`));
  });

  it('checks every option value before the command runs, naming the option and the rule', () => {
    const refused = (argv: string[], words: RegExp) => {
      const e = (() => {
        try {
          parseCommandLine(argv);
        } catch (e) {
          return e;
        }
      })();
      expect(e, argv.join(' ')).toBeInstanceOf(UsageError);
      expect((e as Error).message).toMatch(words);
    };
    refused(['feeds', 'import', 'big.txt', '--name', 'x', '--weight', '7'], /^--weight "7": .*0 to 1/);
    refused(['feeds', 'import', 'big.txt', '--name', 'x', '--weight', ''], /^--weight "": /);
    refused(['feeds', 'import', 'big.txt', '--name', 'x', '--format', 'xml'], /^--format "xml": .*plain.*csv/);
    refused(['feeds', 'add', 'x', '--url', 'ftp://h/x', '--every', '1h'], /^--url "ftp:\/\/h\/x": only http/);
    refused(['feeds', 'add', 'x', '--url', 'https://h/x', '--every', '5s'], /^--every "5s": .*1m to 30d/);
    refused(['dev-provider', '--port', '70000'], /^--port "70000": /);
    expect(parseCommandLine(['feeds', 'import', 'f', '--name', 'x', '--weight', '0.25'])).toMatchObject({
      args: { weight: '0.25' },
    });
  });

  it('reads --version and -v as the version command', () => {
    for (const argv of [['--version'], ['-v'], ['version']])
      expect(parseCommandLine(argv)).toEqual({ help: false, command: 'version', args: {} });
  });

  it('lists exactly the commands that run: the operator commands of commands.ts and the four the CLI runs itself', () => {
    expect(Object.keys(COMMANDS).sort()).toEqual(
      [...COMMAND_NAMES, 'start', 'dev-provider', 'mcp', 'db restore', 'db move', 'version'].sort(),
    );
  });

  it('knows every command the docs tell operators to run (npx risk-api …), with the arguments they show', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const files = [
      'README.md',
      ...readdirSync(path.join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const shown = files.flatMap((f) =>
      [
        ...readFileSync(path.join(root, f), 'utf8').matchAll(
          /npx risk-api ([a-z][a-z-]*(?: [a-z][a-z-]*)?)((?: [A-Z][A-Z_]*)*)/g,
        ),
      ].map((m) => ({ f, words: m[1]!, args: m[2]!.trim().split(' ').filter(Boolean) })),
    );
    expect(shown.length).toBeGreaterThan(10);
    for (const { f, words, args } of shown) {
      const command = COMMANDS[words] ? words : words.split(' ')[0]!;
      const group = Object.keys(COMMANDS).some((n) => n.startsWith(`${command} `)); // `npx risk-api keys --help`
      expect(COMMANDS[command] ?? (group && args.length === 0), `${f}: npx risk-api ${words}`).toBeTruthy();
      if (args.length) expect(COMMANDS[command]!.args, `${f}: npx risk-api ${command} ${args.join(' ')}`).toEqual(args);
    }
  });
});
