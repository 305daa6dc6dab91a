/**
 * The voice lab behind the voice scenario's MCP server, modelled on StateGen's ElevenLabs mock (seeds-reference
 * 6.4/6.6): ten fixed voices, Speech objects instead of audio files (text, voice, voice settings, duration and the
 * history of every transition applied to them), and a recorder of outbound calls. Every tool call is appended to
 * the transition log.
 */
import { z } from 'zod';
import type { JsonValue } from '../../../core/json.ts';

export const voiceLibrary = [
  { voice_name: 'Emma', category: 'conversational', gender: 'feminine' },
  { voice_name: 'James', category: 'professional', gender: 'masculine' },
  { voice_name: 'Oliver', category: 'casual', gender: 'masculine' },
  { voice_name: 'Michael', category: 'old', gender: 'masculine' },
  { voice_name: 'Sofia', category: 'young', gender: 'feminine' },
  { voice_name: 'Alexander', category: 'professional', gender: 'masculine' },
  { voice_name: 'Evelyn', category: 'old', gender: 'feminine' },
  { voice_name: 'Isabella', category: 'casual', gender: 'feminine' },
  { voice_name: 'Arthur', category: 'young', gender: 'masculine' },
  { voice_name: 'Sophia', category: 'conversational', gender: 'feminine' },
] as const;
export type Voice = typeof voiceLibrary[number];
export const voiceCategories = ['conversational', 'professional', 'casual', 'young', 'old'] as const;
export const voiceGenders = ['feminine', 'masculine'] as const;

export type Speech = {
  speech_id: string;
  text: string;
  voice_name: string;
  stability: number;
  similarity_boost: number;
  style: number;
  duration: number;
  /** Every transition that produced this speech, oldest first. */
  history: string[];
};

export type OutboundCall = { call_id: string; voice_name: string; speech: Speech };

/** A tool refusing its input: the MCP result carries `isError`, and model code sees a thrown Error. */
export class VoiceLabError extends Error {}

/** Seconds of speech for a text: 0.4 s per word, two decimals (deterministic). */
export function speechDuration(text: string): number {
  const words = text.trim() === '' ? 0 : text.trim().split(/\s+/).length;
  return Math.round(words * 40) / 100;
}

export const speechReferenceSchema = z.union([
  z.string().describe('a speech_id'),
  z.object({ speech_id: z.string() }).passthrough().describe('a Speech object returned by another tool'),
]);
export type SpeechReference = z.infer<typeof speechReferenceSchema>;

export class VoiceLab {
  readonly #speeches = new Map<string, Speech>();
  readonly calls: OutboundCall[] = [];
  readonly transitions: { tool: string; arguments: JsonValue }[] = [];
  #nextSpeech = 0;
  #nextCall = 0;

  record(tool: string, args: JsonValue): void {
    this.transitions.push({ tool, arguments: args });
  }

  voice(name: string): Voice {
    const voice = voiceLibrary.find((item) => item.voice_name === name);
    if (!voice) throw new VoiceLabError(`voice '${name}' not found in the voice library; search_voice_library lists the available voices`);
    return voice;
  }

  speech(reference: SpeechReference): Speech {
    const id = typeof reference === 'string' ? reference : reference.speech_id;
    const speech = this.#speeches.get(id);
    if (!speech) throw new VoiceLabError(`speech '${id}' does not exist: pass a Speech returned by text_to_speech, speech_to_speech or isolate_audio`);
    return speech;
  }

  #store(speech: Omit<Speech, 'speech_id'>): Speech {
    const stored = { speech_id: `speech_${this.#nextSpeech++}`, ...speech };
    this.#speeches.set(stored.speech_id, stored);
    return structuredClone(stored);
  }

  searchVoiceLibrary(criteria: { search_name?: string; search_category?: string; search_gender?: string }): Voice[] {
    if (criteria.search_name === undefined && criteria.search_category === undefined && criteria.search_gender === undefined) {
      throw new VoiceLabError('give at least one of search_name, search_category, search_gender');
    }
    return voiceLibrary.filter((voice) => (criteria.search_name === undefined || voice.voice_name.toLowerCase() === criteria.search_name.toLowerCase())
      && (criteria.search_category === undefined || voice.category === criteria.search_category)
      && (criteria.search_gender === undefined || voice.gender === criteria.search_gender)).map((voice) => ({ ...voice }));
  }

  textToSpeech(input: { text: string; voice_name: string; stability?: number; similarity_boost?: number; style?: number }): Speech {
    if (input.text.trim() === '') throw new VoiceLabError('text must not be empty');
    this.voice(input.voice_name);
    const settings = { stability: input.stability ?? 0.5, similarity_boost: input.similarity_boost ?? 0.75, style: input.style ?? 0 };
    for (const [name, value] of Object.entries(settings)) if (value < 0 || value > 1) throw new VoiceLabError(`${name} must be between 0 and 1, got ${value}`);
    return this.#store({ text: input.text, voice_name: input.voice_name, ...settings, duration: speechDuration(input.text), history: [`text_to_speech(${input.voice_name})`] });
  }

  speechToSpeech(input: { speech: SpeechReference; voice_name: string }): Speech {
    const source = this.speech(input.speech);
    this.voice(input.voice_name);
    return this.#store({ ...source, voice_name: input.voice_name, history: [...source.history, `speech_to_speech(${input.voice_name})`] });
  }

  speechToText(input: { speech: SpeechReference; diarize?: boolean }): { text: string; diarize: boolean } {
    const source = this.speech(input.speech);
    return { text: source.text, diarize: input.diarize ?? false };
  }

  isolateAudio(input: { speech: SpeechReference }): Speech {
    const source = this.speech(input.speech);
    return this.#store({ ...source, duration: Math.round(source.duration * 50) / 100, history: [...source.history, 'isolate_audio'] });
  }

  makeOutboundCall(input: { speech: SpeechReference; voice_name: string }): { status: 'called'; call_id: string } {
    const speech = this.speech(input.speech);
    this.voice(input.voice_name);
    const call = { call_id: `call_${this.#nextCall++}`, voice_name: input.voice_name, speech: structuredClone(speech) };
    this.calls.push(call);
    return { status: 'called', call_id: call.call_id };
  }
}
