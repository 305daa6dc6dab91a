/**
 * Punctuation noise (mode `punctuation_noise`), three draws always taken in this order:
 * 1. below 0.5: end the (trimmed) query with a period unless it ends with . ! or ?, then add "??";
 * 2. below 0.5: every ", " becomes ",\n";
 * 3. below 0.3: every period is deleted.
 */
import type { RandomSource } from './random-source.ts';
import { verbatimMask } from './verbatim-spans.ts';

export function addPunctuationNoise(query: string, random: RandomSource): string {
  let noisy = query.trim();
  if (random.float() < 0.5) noisy = `${withTrailingPeriod(noisy)}??`;
  if (random.float() < 0.5) noisy = noisy.replaceAll(', ', ',\n');
  // Periods inside names and numbers (data.title, 12.8) stay: deleting them would name or give something else.
  if (random.float() < 0.3) {
    const kept = verbatimMask(noisy);
    let withoutPeriods = '';
    for (let index = 0; index < noisy.length; index += 1) if (noisy[index] !== '.' || kept[index]) withoutPeriods += noisy[index];
    noisy = withoutPeriods;
  }
  return noisy;
}

function withTrailingPeriod(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '' || /[.!?]$/.test(trimmed)) return trimmed;
  return `${trimmed}.`;
}
