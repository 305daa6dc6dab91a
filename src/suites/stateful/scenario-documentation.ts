/**
 * The API documentation shown to the model, per scenario, for JavaScript programs (our own wording; the session
 * endpoints follow the Session Service's Swagger description).
 */
import type { ScenarioId } from './stateful-backend.ts';

const session = `# Session Service REST API

Base URL: the preloaded variable BASE_URL. Use axios (preloaded as \`axios\`) or fetch. Sessions are JSON objects
{ id, source, type, data }. \`type\` must be one of: main_session, virtual_study, group, comparison_session,
settings, custom_data, genomic_chart, custom_gene_list. \`source\` must be at least 3 characters long.

- POST   /api/sessions/{source}/{type}                body: the session's data object. Returns only { id }. Posting
                                                      data identical to a stored session of that source and type
                                                      returns the existing session's id instead of creating one.
- GET    /api/sessions/{source}/{type}                the list of sessions of that source and type (insertion order).
- GET    /api/sessions/{source}/{type}/query?field=F&value=V
                                                      sessions whose field F (dotted, e.g. data.title) equals the
                                                      string V.
- POST   /api/sessions/{source}/{type}/query/fetch    body: an equality filter { "data.title": "x" }; matching sessions.
- GET    /api/sessions/{source}/{type}/{id}           one session.
- PUT    /api/sessions/{source}/{type}/{id}           body: the new data object (replaces the data).
- DELETE /api/sessions/{source}/{type}/{id}           deletes the session.
- GET    /info                                        service information.

Errors: 400 for an invalid type, a short source or a body that is not a JSON object; 404 "Session not found" for an
unknown id.`;

const tensor = `# Tensor API (PyTorch semantics, JavaScript syntax)

Tensors are handles { shape, dtype }: read \`t.shape\` (an array), pass them to the functions below. All functions
return immediately (no await). Dimensions may be negative (counted from the end), as in PyTorch.

- torch.load(name)                      a saved tensor.
- torch.cat([a, b, ...], dim = 0)       concatenate along dim (other dimensions must match).
- torch.transpose(t, dim0, dim1)        swap two dimensions.
- torch.permute(t, [d0, d1, ...])       reorder all dimensions.
- torch.split(t, sizeOrSections, dim = 0)
                                        an array of tensors: chunks of size sizeOrSections (the last may be smaller),
                                        or of the given sizes when an array is passed.
- torch.view(t, shape)                  same data, new shape (one entry may be -1). Like Tensor.view it needs a
                                        contiguous tensor: results of transpose/permute (and inner splits) are not;
                                        use torch.reshape for them.
- torch.reshape(t, shape)               new shape (one entry may be -1), any tensor.
- F.linear(input, weight, bias?)        input @ weight^T + bias; weight [out_features, in_features].
- F.conv2d(input, weight, { bias, stride = 1, padding = 0, dilation = 1, groups = 1 })
                                        2-D convolution of [N, C, H, W] (or [C, H, W]) input with weight
                                        [out_channels, C / groups, kH, kW]; padding may be a number, a pair,
                                        'valid' or 'same' ('same' needs stride 1).

Errors are thrown as RuntimeError with PyTorch's messages.`;

const voice = `# Voice lab tools (MCP server, called as async functions)

Each tool takes one object of named arguments and returns a promise: \`await text_to_speech({ text, voice_name })\`.
A Speech is { speech_id, text, voice_name, stability, similarity_boost, style, duration, history }; pass the Speech
object (or its speech_id) wherever a speech is expected.

- search_voice_library({ search_name?, search_category?, search_gender? })
      voices [{ voice_name, category, gender }] matching every given criterion; category is one of conversational,
      professional, casual, young, old; gender is feminine or masculine. At least one criterion is required.
- text_to_speech({ text, voice_name, stability = 0.5, similarity_boost = 0.75, style = 0 })   a new Speech.
- speech_to_speech({ speech, voice_name })   the speech re-voiced with voice_name (a new Speech).
- speech_to_text({ speech, diarize = false })   { text, diarize }.
- isolate_audio({ speech })   the speech without background noise (a new Speech, half the duration).
- make_outbound_call({ speech, voice_name })   places a phone call playing the speech; returns { status, call_id }.

A tool error (unknown voice, unknown speech, invalid argument) is thrown as an Error.`;

export const scenarioDocumentation: Record<ScenarioId, string> = { session, tensor, voice };
