/**
 * The voice-lab state machine: the program's variables are user requests (a text plus voice search criteria or a
 * voice name), voice lists, speeches (whose voice, text and duration the model tracks exactly), transcripts and
 * call receipts. A tool is a valid next call when objects in scope can feed it (a speech for isolate_audio, a
 * voice name from a search or a user variable for text_to_speech...).
 */
import type { JsonValue } from '../../../core/json.ts';
import type { Rng } from '../../../core/rng.ts';
import type { BranchCondition, Candidate, Scenario, SharedProgramParts } from '../trace-model.ts';
import { speechDuration, voiceLibrary } from './voice-lab.ts';
import { voiceToolNames } from './voice-mcp-server.ts';

export const voiceApis = voiceToolNames;

const texts = [
  'Your appointment is confirmed for Monday morning',
  'Thank you for calling the support line',
  'The package will arrive within two business days',
  'Please remember to bring your identification',
  'Welcome to the quarterly product briefing',
  'Your order has been shipped today',
  'We noticed unusual activity on your account',
  'The meeting has moved to the third floor',
];

type Source = { expression: string; variable: string; value: string };
type SpeechVariable = { name: string; text: string; voice: string; duration: number };
type Touch = { name: string; lhs: { expression: string; value: JsonValue }[] };

export class VoiceTraceState {
  constructor(
    readonly shared: SharedProgramParts,
    readonly users: { name: string; criteria: Record<string, string> }[],
    readonly voices: Source[],
    readonly texts: Source[],
    readonly speeches: SpeechVariable[],
    readonly touched: Touch[],
  ) {}

  clone(): VoiceTraceState {
    return new VoiceTraceState(this.shared, this.users, [...this.voices], [...this.texts], this.speeches.map((item) => ({ ...item })), [...this.touched]);
  }
}

function initialState(rng: Rng, shared: SharedProgramParts): VoiceTraceState {
  const state = new VoiceTraceState(shared, [], [], [], [], []);
  const count = rng.int(1, 2);
  for (let index = 0; index < count; index += 1) {
    const name = shared.name('user_variable');
    const voice = rng.pick(voiceLibrary);
    const value: Record<string, string> = { text: rng.pick(texts) };
    const criteria: Record<string, string> = {};
    if (rng.bool(0.3)) {
      value.voice_name = voice.voice_name;
      state.voices.push({ expression: `${name}.voice_name`, variable: name, value: voice.voice_name });
    } else {
      if (rng.bool(0.7)) criteria.search_category = voice.category;
      if (rng.bool(0.7) || Object.keys(criteria).length === 0) criteria.search_gender = voice.gender;
      Object.assign(value, criteria);
    }
    shared.declare(name, `let ${name} = ${JSON.stringify(value)};`);
    state.users.push({ name, criteria });
    state.texts.push({ expression: `${name}.text`, variable: name, value: value.text });
    state.touched.push({ name, lhs: [{ expression: `${name}.text`, value: value.text }] });
  }
  return state;
}

function speechTouch(speech: SpeechVariable): Touch {
  return { name: speech.name, lhs: [{ expression: `${speech.name}.voice_name`, value: speech.voice }, { expression: `${speech.name}.duration`, value: speech.duration }] };
}

function addSpeech(state: VoiceTraceState, speech: SpeechVariable): void {
  state.speeches.push(speech);
  state.touched.push(speechTouch(speech));
}

function candidates(state: VoiceTraceState, rng: Rng): Candidate<VoiceTraceState>[] {
  const result: Candidate<VoiceTraceState>[] = [];
  for (const user of state.users) {
    const keys = Object.keys(user.criteria);
    if (keys.length === 0) continue;
    const used = keys.length > 1 && rng.bool(0.3) ? [rng.pick(keys)] : keys;
    result.push({
      transition: 'search_voice_library', isApiCall: true, consumes: [user.name], parameterKey: `${user.name}:${used.join(',')}`,
      apply: (target) => {
        const name = target.shared.name('response');
        const found = voiceLibrary.filter((voice) => used.every((key) => (key === 'search_category' ? voice.category : voice.gender) === user.criteria[key]));
        for (const index of [...new Set([0, found.length - 1])].filter((item) => item >= 0)) {
          target.voices.push({ expression: `${name}[${index}].voice_name`, variable: name, value: found[index].voice_name });
        }
        target.touched.push({ name, lhs: [{ expression: `${name}.length`, value: found.length }] });
        const args = used.map((key) => `${key}: ${user.name}.${key}`).join(', ');
        return { statements: [`let ${name} = await search_voice_library({ ${args} });`], produces: [name] };
      },
    });
  }
  if (state.texts.length > 0 && state.voices.length > 0) {
    const text = rng.pick(state.texts);
    const voice = rng.pick(state.voices);
    const settings = rng.bool(0.5) ? { stability: rng.int(0, 100) / 100, similarity_boost: rng.int(0, 100) / 100 } : undefined;
    result.push({
      transition: 'text_to_speech', isApiCall: true, consumes: [text.variable, voice.variable], parameterKey: `${text.expression}:${voice.expression}`,
      apply: (target) => {
        const name = target.shared.name('response');
        addSpeech(target, { name, text: text.value, voice: voice.value, duration: speechDuration(text.value) });
        const extra = settings ? `, stability: ${settings.stability}, similarity_boost: ${settings.similarity_boost}` : '';
        return { statements: [`let ${name} = await text_to_speech({ text: ${text.expression}, voice_name: ${voice.expression}${extra} });`], produces: [name] };
      },
    });
  }
  for (const speech of state.speeches) {
    if (state.voices.length > 0) {
      const voice = rng.pick(state.voices);
      result.push({
        transition: 'speech_to_speech', isApiCall: true, consumes: [speech.name, voice.variable], parameterKey: `${speech.name}:${voice.expression}`,
        apply: (target) => {
          const name = target.shared.name('response');
          addSpeech(target, { name, text: speech.text, voice: voice.value, duration: speech.duration });
          return { statements: [`let ${name} = await speech_to_speech({ speech: ${speech.name}, voice_name: ${voice.expression} });`], produces: [name] };
        },
      });
      result.push({
        transition: 'make_outbound_call', isApiCall: true, consumes: [speech.name, voice.variable], parameterKey: `${speech.name}:${voice.expression}`,
        apply: (target) => {
          const name = target.shared.name('response');
          target.touched.push({ name, lhs: [{ expression: `${name}.status`, value: 'called' }] });
          return { statements: [`let ${name} = await make_outbound_call({ speech: ${speech.name}, voice_name: ${voice.expression} });`], produces: [name] };
        },
      });
    }
    const diarize = rng.bool();
    result.push({
      transition: 'speech_to_text', isApiCall: true, consumes: [speech.name], parameterKey: speech.name,
      apply: (target) => {
        const name = target.shared.name('response');
        target.texts.push({ expression: `${name}.text`, variable: name, value: speech.text });
        target.touched.push({ name, lhs: [{ expression: `${name}.text`, value: speech.text }] });
        return { statements: [`let ${name} = await speech_to_text({ speech: ${speech.name}, diarize: ${diarize} });`], produces: [name] };
      },
    });
    result.push({
      transition: 'isolate_audio', isApiCall: true, consumes: [speech.name], parameterKey: speech.name,
      apply: (target) => {
        const name = target.shared.name('response');
        addSpeech(target, { name, text: speech.text, voice: speech.voice, duration: Math.round(speech.duration * 50) / 100 });
        return { statements: [`let ${name} = await isolate_audio({ speech: ${speech.name} });`], produces: [name] };
      },
    });
  }
  return result;
}

function condition(state: VoiceTraceState, rng: Rng): BranchCondition | undefined {
  const last = state.touched[state.touched.length - 1];
  if (!last) return undefined;
  const { expression, value } = rng.pick(last.lhs);
  return { lhs: expression, value };
}

export const voiceScenario: Scenario<VoiceTraceState> = {
  id: 'voice',
  apis: voiceApis,
  preamble: [],
  initialState,
  candidates,
  condition,
  resultExpression: (state) => state.touched[state.touched.length - 1]?.name,
  fixtures: (): JsonValue => ({}),
};
