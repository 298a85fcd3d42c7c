// Compiles src/ into plain JavaScript under dist/ (source maps beside it), so the
// service runs on Node alone: no TypeScript loader, nothing from devDependencies.
// dist/ mirrors src/ file for file, which keeps every `new URL('…', import.meta.url)`
// pointing where it points in src/ (prisma/migrations two levels up, assets beside).
//
// dist/build-info.json records a hash of the build's inputs. `ensureBuilt` compares it
// with the sources instead of comparing times: a checkout, a copy into an image or
// `prisma generate` on install all touch times without changing a byte, and a
// production install has no compiler to rebuild with.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const DIST = path.join(ROOT, 'dist');
const INFO_FILE = 'build-info.json';
const TSCONFIG = 'tsconfig.build.json';
/** Besides every file under src/: what changes how it compiles. */
const CONFIG_INPUTS = ['tsconfig.json', TSCONFIG, 'tools/build/build.mjs'];

function filesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

export function sourceHash() {
  const hash = createHash('sha256');
  for (const file of [...filesUnder(path.join(ROOT, 'src')), ...CONFIG_INPUTS].map((f) => f.split(path.sep).join('/')).sort()) {
    hash.update(file).update('\0').update(fs.readFileSync(path.join(ROOT, file))).update('\0');
  }
  return hash.digest('hex');
}

function builtHash() {
  try {
    return JSON.parse(fs.readFileSync(path.join(DIST, INFO_FILE), 'utf8')).sourceHash;
  } catch {
    return undefined;
  }
}

export class BuildError extends Error {}

/**
 * Each source file through TypeScript's own transpiler, one at a time (`ts.transpileModule`, the
 * options of tsconfig.build.json), with its source map: what `tsc -p tsconfig.build.json` emits,
 * since the project compiles under `isolatedModules` and `verbatimModuleSyntax`, in a fraction of
 * the time (tsc type-checks the whole program first; that is `npm run typecheck`'s job, which CI
 * runs). A syntax error still fails the build, naming the file and line.
 */
function transpile(ts, outDir) {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, TSCONFIG), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new BuildError(`${TSCONFIG} cannot be read`);
  const compilerOptions = { ...config.options, outDir, noEmit: false };
  const failures = [];
  for (const file of filesUnder(path.join(ROOT, 'src'))) {
    if (!file.endsWith('.ts')) continue;
    const source = path.join(ROOT, file);
    const target = path.join(outDir, path.relative('src', file)).replace(/\.ts$/, '.js');
    const output = ts.transpileModule(fs.readFileSync(source, 'utf8'), { compilerOptions, fileName: source, reportDiagnostics: true });
    for (const diagnostic of output.diagnostics ?? []) {
      const { line } = diagnostic.file ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0) : { line: 0 };
      failures.push(`${file}:${line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    }
    const map = JSON.parse(output.sourceMapText);
    map.sources = [path.relative(path.dirname(target), source).split(path.sep).join('/')];
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, output.outputText);
    fs.writeFileSync(`${target}.map`, JSON.stringify(map));
  }
  if (failures.length > 0) throw new BuildError(`the TypeScript build failed:\n${failures.join('\n')}`);
}

/** Compiles into a fresh directory and swaps it in, so a failed or concurrent build never leaves a half-written dist/. */
export function build() {
  const hash = sourceHash();
  let ts;
  try {
    ts = createRequire(path.join(ROOT, 'package.json'))('typescript');
  } catch {
    throw new BuildError('dist/ is missing or older than src/, and TypeScript is not installed to build it (a production install?): run `npm run build` before `npm ci --omit=dev`');
  }
  const staging = `${DIST}.${process.pid}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  try {
    transpile(ts, staging);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  for (const file of filesUnder(path.join(ROOT, 'src'))) {
    if (file.endsWith('.ts')) continue;
    const target = path.join(staging, path.relative('src', file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), target);
  }
  fs.writeFileSync(path.join(staging, INFO_FILE), JSON.stringify({ sourceHash: hash, builtAt: new Date().toISOString() }) + '\n');
  const previous = `${DIST}.${process.pid}.old`;
  if (fs.existsSync(DIST)) fs.renameSync(DIST, previous);
  try {
    fs.renameSync(staging, DIST);
  } catch (error) {
    // Another build swapped its dist/ in between our two renames; fine when it compiled the same sources.
    if ((error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') || builtHash() !== hash) throw error;
    fs.rmSync(staging, { recursive: true, force: true });
  }
  fs.rmSync(previous, { recursive: true, force: true });
}

/** Builds when dist/ is missing or was built from other sources; otherwise costs one hash of src/. */
export function ensureBuilt() {
  if (builtHash() === sourceHash()) return;
  process.stderr.write('building dist/ from src/ ...\n');
  build();
}

/** Runs a compiled entry point in this process, so signals reach it with no wrapper in between. */
export async function runBuilt(entry) {
  try {
    ensureBuilt();
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
  }
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(path.join(DIST, entry)).href);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    build();
  } catch (error) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
  }
}
