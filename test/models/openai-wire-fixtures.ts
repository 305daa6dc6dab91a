/** The Chat Completions wire shapes the openai and openai-compatible conformance runs expect. */
export const openAITools = [
  { type: 'function', function: { name: 'get_weather', description: 'Current weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'] } } },
  { type: 'function', function: { name: 'get_time', description: 'Local time in a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
];

/** The Chat Completions shape of the conformance tool exchange: one role:tool message per result. */
export const openAIToolExchangeMessages = [
  { role: 'system', content: 'You answer weather questions.' },
  { role: 'user', content: 'Weather and time in Paris?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"city":"Paris"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_a', content: '{"temperature":18,"unit":"c"}' },
  { role: 'tool', tool_call_id: 'call_b', content: '{"error":{"code":"unavailable","message":"clock offline"}}' },
];
