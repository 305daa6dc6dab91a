// Preloaded (node --import) into a bench child: writes the process's peak resident set size (KB) to the file
// named by TOOLFORGE_BENCH_PEAK_RSS_FILE when it exits, so a CLI run can be measured as a user runs it.
import { writeFileSync } from 'node:fs';

const file = process.env.TOOLFORGE_BENCH_PEAK_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
