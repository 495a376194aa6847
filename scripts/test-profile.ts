// Prints a test run's profile (test/profile/profile.ts): from the profile reporter's JSON
// (test-artifacts/profile-<backend>.json) or from a vitest JSON report (CI's test-artifacts/embedded.json).
//   npm run test:profile:show -- test-artifacts/embedded.json [more files...]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { profileFromJsonReport, renderProfile, type RunProfile } from '../test/profile/profile.ts';

const files = process.argv.slice(2);
if (!files.length) {
  console.error('usage: npm run test:profile:show -- <profile or vitest JSON report>...');
  process.exit(2);
}
for (const file of files) {
  const data = JSON.parse(readFileSync(file, 'utf8'));
  const run: RunProfile = Array.isArray(data.files) ? data : profileFromJsonReport(data, path.basename(file, '.json'));
  console.log(`${renderProfile(run, 40)}\n`);
}
