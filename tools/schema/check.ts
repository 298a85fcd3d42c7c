// `npm run schema:check`: fails when schema.graphql breaks a client of the released schema.
// The base is the schema.graphql of SCHEMA_BASE (a git ref), else of the newest release tag
// (v*), else of `main`. A breaking change is one @graphql-inspector/core rates BREAKING, with
// one exception the policy allows (README, "GraphQL"): removing a field that the base had
// already deprecated. Everything else must be deprecated in one release and removed in a later one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { buildSchema } from 'graphql';
import { CriticalityLevel, diff, DiffRule } from '@graphql-inspector/core';
import { SDL_FILE } from './sdl.ts';

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

const base = process.env.SCHEMA_BASE || git(['describe', '--tags', '--abbrev=0', '--match', 'v*']) || 'main';
const baseSdl = git(['show', `${base}:schema.graphql`]);
if (baseSdl === undefined) {
  process.stdout.write(`schema:check: ${base} has no schema.graphql; nothing to compare with\n`);
  process.exit(0);
}

const changes = await diff(buildSchema(baseSdl), buildSchema(fs.readFileSync(SDL_FILE, 'utf8')), [DiffRule.suppressRemovalOfDeprecatedField]);
const breaking = changes.filter((change) => change.criticality.level === CriticalityLevel.Breaking);
const dangerous = changes.filter((change) => change.criticality.level === CriticalityLevel.Dangerous);
for (const change of dangerous) process.stdout.write(`dangerous: ${change.message}\n`);
for (const change of breaking) process.stdout.write(`BREAKING: ${change.message}${change.criticality.reason ? ` (${change.criticality.reason})` : ''}\n`);
process.stdout.write(`schema:check against ${base}: ${changes.length} change(s), ${breaking.length} breaking, ${dangerous.length} dangerous\n`);
process.exit(breaking.length > 0 ? 1 : 0);
