export * from './document.ts';
export { loadOpenApiFile, loadOpenApiObject } from './load-openapi.ts';
export { compilePathTemplate, extractPathParameters, matchUrlToPaths, stripServerUrl } from './path-matcher.ts';
export { isLegalArgument, isSecurityCredential, requestBodyPropertyNames } from './argument-legality.ts';
export type { ArgumentQuery } from './argument-legality.ts';
export { createSchemaValidator } from './schema-validator.ts';
export type { SchemaCheck, SchemaValidator } from './schema-validator.ts';
export { sampleSchemaValue } from './schema-sampler.ts';
export type { SampleOptions } from './schema-sampler.ts';
