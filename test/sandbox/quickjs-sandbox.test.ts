import { registerSandboxConformance } from '../../test/conformance/sandbox.cases.ts';
import { createSandbox } from './index.ts';

registerSandboxConformance('QuickJS (worker pool)', (options) => createSandbox(options));
