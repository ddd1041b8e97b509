import fs from 'node:fs';
const pages: string[] = JSON.parse(fs.readFileSync('/tmp/pages.json', 'utf8'));
let t = performance.now();
const { readCheckoutForm } = await import('./src/codecs/html.js');
console.log('import', (performance.now() - t).toFixed(0));
const times: number[] = [];
for (const p of [...pages, ...pages, ...pages]) { t = performance.now(); readCheckoutForm(p); times.push(Math.round(performance.now() - t)); }
console.log(times.join(' '));
