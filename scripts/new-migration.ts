// Creates prisma/migrations/<timestamp>_<name>/migration.sql: the SQL that takes a database
// from the committed migration history to prisma/schema.prisma.
// Uses Prisma's schema engine compiled to WebAssembly over an in-memory PGlite (as the
// shadow database), so no native engine download is needed. Usage:
//   npx tsx scripts/new-migration.ts <name>        (prints nothing and exits 0 when up to date)
//   npx tsx scripts/new-migration.ts --check       (exits 1 when the schema has unmigrated changes)
import { readFile, readdir, mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';

const root = path.resolve(import.meta.dirname, '..');
const migrationsDir = path.join(root, 'prisma/migrations');
const schemaPath = path.join(root, 'prisma/schema.prisma');

async function loadSchemaEngine() {
  // The package entry imports a .wasm module, which Node 20 refuses; wire it by hand.
  const bgUrl = import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const bgPath = fileURLToPath(bgUrl);
  const bg = await import(bgUrl);
  const bytes = await readFile(path.join(path.dirname(bgPath), 'schema_engine_bg.wasm'));
  const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': bg });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
  return bg.SchemaEngine;
}

async function migrationList() {
  const names = (await readdir(migrationsDir, { withFileTypes: true }).catch(() => []))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: 'provider = "postgresql"\n' },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      names.map(async (name) => ({
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: {
            tag: 'ok' as const,
            value: await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8'),
          },
        },
      })),
    ),
  };
}

const arg = process.argv[2];
if (!arg) {
  console.error('usage: new-migration.ts <name> | --check');
  process.exit(2);
}
const SchemaEngine = await loadSchemaEngine();
const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPGlite(new PGlite()));
const schema = await readFile(schemaPath, 'utf8');
const engine = await SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, () => {}, adapter);
const result = await engine.diff({
  from: { tag: 'migrations', ...(await migrationList()) },
  to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
  script: true,
  exitCode: null,
  filters: { externalTables: [], externalEnums: [] },
});
const sql = (result.stdout ?? '').trim();
const empty = sql === '' || sql === '-- This is an empty migration.';
if (arg === '--check') {
  if (!empty) {
    console.error(`prisma/schema.prisma has changes without a migration:\n${sql}`);
    process.exit(1);
  }
  console.log('migrations are up to date with prisma/schema.prisma');
} else if (!empty) {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const dir = path.join(migrationsDir, `${stamp}_${arg.replace(/[^a-z0-9_]/gi, '_')}`);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'migration.sql'), `${sql}\n`);
  await writeFile(path.join(migrationsDir, 'migration_lock.toml'), 'provider = "postgresql"\n');
  console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
}
