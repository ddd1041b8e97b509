// Preloaded (node --import) into a kit process measured by the hostile matrix and bench:hostile: writes the process's
// peak resident set size (all its threads), in kilobytes, to PAGI_RSS_FILE when it exits.
import fs from 'node:fs';

process.on('exit', () => {
  if (process.env.PAGI_RSS_FILE) fs.writeFileSync(process.env.PAGI_RSS_FILE, String(process.resourceUsage().maxRSS));
});
