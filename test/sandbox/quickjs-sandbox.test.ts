import { registerSandboxConformance } from '../conformance/sandbox.cases.ts';
import { createSandbox } from '../../src/sandbox/index.ts';

registerSandboxConformance('QuickJS (worker pool)', (options) => createSandbox(options));
