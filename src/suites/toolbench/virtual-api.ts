/**
 * The virtual API server of StableToolBench (reference §5.4) without the network: arguments
 * parsed ("" is {}; unparsable text gets the reference's parse error), the cache consulted first,
 * on a miss the simulator answers and the answer is stored, so a rerun reads the same bytes.
 */
import type { JsonObject } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { ApiAddress, ResponseCache, VirtualResponse } from './response-cache.ts';
import type { StableApi } from './stabletoolbench-data.ts';
import { simulateResponse } from './template-simulator.ts';

export type Simulator = (address: ApiAddress, arguments_: JsonObject, api: StableApi) => Promise<VirtualResponse> | VirtualResponse;

export type VirtualApiOptions = { cache: ResponseCache; seed: number; simulator?: Simulator };

export type VirtualCall = { response: VirtualResponse; source: 'cache' | 'simulator' | 'parse-error' };

export const toolInputParseError: VirtualResponse = { error: 'Tool input parse error...\n', response: '' };

export function addressOf(api: StableApi): ApiAddress {
  return { category: api.category_name, tool: api.tool_name, api: api.api_name };
}

export function createVirtualApi(options: VirtualApiOptions) {
  const simulator: Simulator = options.simulator ?? ((address, arguments_, api) => simulateResponse(address, arguments_, api.template_response, options.seed));
  return {
    async call(api: StableApi, argumentsText: string): Promise<VirtualCall> {
      let arguments_: JsonObject;
      try {
        const parsed: unknown = argumentsText.trim() === '' ? {} : JSON.parse(argumentsText);
        if (!isJsonObject(parsed)) return { response: toolInputParseError, source: 'parse-error' };
        arguments_ = parsed;
      } catch {
        return { response: toolInputParseError, source: 'parse-error' };
      }
      const address = addressOf(api);
      const cached = options.cache.get(address, arguments_);
      if (cached) return { response: cached, source: 'cache' };
      const response = await simulator(address, arguments_, api);
      options.cache.set(address, arguments_, response);
      return { response, source: 'simulator' };
    },
  };
}
