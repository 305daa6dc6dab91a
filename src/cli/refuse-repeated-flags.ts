/**
 * A flag that takes one value, given twice, is refused on every command: commander keeps the last silently, so
 * `--mode react --mode calls` ran in calls mode and `--out a --out b` wrote b. Flags meant to repeat (`--set`,
 * `--model` of a sweep, `--transform`) are marked with `repeatable`; on/off flags may repeat harmlessly.
 */
import type { Command, Option } from 'commander';
import { isRepeatable } from './option-parsers.ts';

export function refuseRepeatedFlags(command: Command): void {
  for (const option of command.options as readonly Option[]) {
    if (option.isBoolean() || option.variadic || (option.parseArg !== undefined && isRepeatable(option.parseArg))) continue;
    let given = false;
    // Commander's own listener (registered first) has parsed and checked the value by now.
    command.on(`option:${option.name()}`, (value: string | null) => {
      if (!given) {
        given = true;
        return;
      }
      const argument = value === null ? '' : ` argument '${value}' is invalid.`;
      command.error(`error: option '${option.flags}'${argument} ${option.long ?? option.flags} was given twice; pass it once (the command would silently use only one of them)`, {
        code: 'commander.optionGivenTwice',
      });
    });
  }
  for (const subcommand of command.commands) refuseRepeatedFlags(subcommand);
}
