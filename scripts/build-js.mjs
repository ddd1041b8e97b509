// `npm run build:js` (also `prepare`, so `npm ci` in a clone runs it, and `prepack`): the kit's TypeScript compiled
// ahead to JavaScript under dist/, file by file (esbuild's transform, no bundling, no type check: `npm run typecheck`
// does that), with the other files those folders hold (the validators, the HTML thread, the gateway's defaults)
// copied beside them. bin/launch.js then starts the CLI from dist/ and its suite worker loads the compiled suites
// natively: no TypeScript transform when a run starts. dist/BUILD.json records the build; a source changed after it
// makes bin/launch.js fall back to the TypeScript sources until the next build. Plain JavaScript, so it runs before
// anything else is built. Takes about a second.
import { COMPILED_FOLDERS } from './compiled-folders.mjs';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * esbuild, the transformer tsx (a dependency of the kit) runs on: where npm put it, at the top or under tsx. Without
 * it nothing is built and the kit runs from its sources (a failing `prepare` would fail `npm ci`).
 */
async function esbuild() {
  try {
    return await import('esbuild');
  } catch {
    try {
      const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json')).resolve('esbuild');
      return await import(pathToFileURL(fromTsx).href);
    } catch {
      return undefined;
    }
  }
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist');
/** Files of those folders a run never loads: tests and their fixtures, notes. */
const LEFT_OUT = /(^|\/)test\/|\.test\.ts$|\.d\.ts$|\.md$/;
/** What tsconfig.json says of the emitted JavaScript (esbuild reads no tsconfig in transform mode). */
const TSCONFIG = { compilerOptions: { target: 'ES2022', useDefineForClassFields: true, verbatimModuleSyntax: false } };

/** Every file under `dir` (relative to the kit's root). */
function filesUnder(dir) {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) =>
      path
        .relative(ROOT, path.join(e.parentPath ?? e.path, e.name))
        .split(path.sep)
        .join('/'),
    )
    .filter((f) => !LEFT_OUT.test(f));
}

const started = performance.now();
const { transform } = (await esbuild()) ?? {};
if (!transform) {
  console.log('dist/ not built: esbuild is not installed (the kit runs from its TypeScript sources)');
  process.exit(0);
}
const files = COMPILED_FOLDERS.flatMap(filesUnder);
let compiled = 0;
await Promise.all(
  files.map(async (file) => {
    const source = path.join(ROOT, file);
    if (!file.endsWith('.ts')) {
      fs.mkdirSync(path.dirname(path.join(OUT, file)), { recursive: true });
      fs.copyFileSync(source, path.join(OUT, file));
      return;
    }
    const { code } = await transform(fs.readFileSync(source, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcefile: file,
      tsconfigRaw: TSCONFIG,
    });
    const target = path.join(OUT, file.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, code);
    compiled++;
  }),
);
// Written last: bin/launch.js compares the sources' modification times with this file's.
fs.writeFileSync(
  path.join(OUT, 'BUILD.json'),
  `${JSON.stringify({ folders: COMPILED_FOLDERS, compiled, copied: files.length - compiled }, null, 2)}\n`,
);
console.log(
  `dist/: ${compiled} TypeScript files compiled, ${files.length - compiled} copied (${Math.round(performance.now() - started)} ms)`,
);
