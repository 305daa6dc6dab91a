/**
 * Runs the voice lab MCP server over stdio, for MCP clients that spawn their servers:
 * `node --import tsx src/suites/stateful/voice/voice-mcp-stdio.ts`. One fresh lab per process.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { VoiceLab } from './voice-lab.ts';
import { createVoiceMcpServer } from './voice-mcp-server.ts';

await (await createVoiceMcpServer(new VoiceLab())).connect(new StdioServerTransport());
