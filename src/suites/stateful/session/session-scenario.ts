/**
 * The Session Service state machine (paper III-B/III-C): the generator's model of the backend (sessions per
 * source||type, in insertion order, with identical data deduplicated) and of the program's variables (user
 * sessions, POST responses, listed sessions). Seven APIs, the service's session endpoints: addSession,
 * getSessions, getSession, querySessions, fetchSessions (POST query/fetch), updateSession, deleteSession.
 * Parameters are solved against that model: only ids in scope and still stored are read, updated or deleted, and
 * an update never makes two sessions of a collection hold identical data.
 */
import { canonicalJson, type JsonObject, type JsonValue } from '../../../core/json.ts';
import type { Rng } from '../../../core/rng.ts';
import type { BranchCondition, Candidate, Scenario, SharedProgramParts } from '../trace-model.ts';
import { sessionServiceBaseUrl } from './session-backend.ts';
import { sessionTypes } from './session-store.ts';

export const sessionApis = ['addSession', 'getSessions', 'getSession', 'querySessions', 'fetchSessions', 'updateSession', 'deleteSession'] as const;

const sources = ['user_portal', 'cbioportal', 'public_portal', 'lab_portal'];
const titles = ['Ovarian Cancer Analysis', 'Lung Cohort', 'Breast Study', 'Melanoma Panel', 'Glioma Review', 'Colon Survey', 'Kidney Atlas', 'Liver Screen'];
const owners = ['ana@example.com', 'li@example.com', 'sam@example.com', 'ravi@example.com', 'mia@example.com'];
const editableFields = ['title', 'owner', 'similarities'] as const;

type StoredSession = { uid: number; data: JsonObject };

/** A variable that holds one session: a user variable, or an element of a listed response. */
type SessionHandle = {
  /** The JavaScript expression of the session object (has .source, .type, .data). */
  expression: string;
  /** The state object bridging pairs: the variable's name. */
  variable: string;
  collection: string;
  source: string;
  type: string;
  data: JsonObject;
  /** The stored session it refers to, once known (after a POST, or when listed). */
  uid: number | undefined;
  /** The expression of its id, once known. */
  idExpression: string | undefined;
  /** The variable the id expression reads (a POST response, or the listed response itself). */
  idVariable: string | undefined;
};

type ListVariable = { name: string; collection: string; source: string; type: string; items: StoredSession[] };

type Touch = { kind: 'handle'; expression: string } | { kind: 'list'; name: string };

function copyData(data: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(data)) as JsonObject;
}

export class SessionTraceState {
  constructor(
    readonly shared: SharedProgramParts,
    readonly collections: Map<string, StoredSession[]>,
    readonly handles: SessionHandle[],
    readonly lists: ListVariable[],
    /** Newest last: what RESULT and the branch condition look at. */
    readonly touched: Touch[],
    readonly fixtureSessions: { source: string; type: string; data: JsonObject }[],
    public nextUid: number,
  ) {}

  clone(): SessionTraceState {
    return new SessionTraceState(
      this.shared,
      new Map([...this.collections].map(([key, sessions]) => [key, sessions.map((session) => ({ uid: session.uid, data: copyData(session.data) }))])),
      this.handles.map((handle) => ({ ...handle, data: copyData(handle.data) })),
      this.lists.map((list) => ({ ...list, items: list.items.map((item) => ({ uid: item.uid, data: copyData(item.data) })) })),
      [...this.touched],
      this.fixtureSessions,
      this.nextUid,
    );
  }

  stored(collection: string): StoredSession[] {
    let sessions = this.collections.get(collection);
    if (!sessions) {
      sessions = [];
      this.collections.set(collection, sessions);
    }
    return sessions;
  }

  /** What POSTing `data` returns: the session already holding identical data, or a new one. */
  post(collection: string, data: JsonObject): number {
    const sessions = this.stored(collection);
    const existing = sessions.find((session) => canonicalJson(session.data) === canonicalJson(data));
    if (existing) return existing.uid;
    const uid = this.nextUid++;
    sessions.push({ uid, data: copyData(data) });
    return uid;
  }

  isStored(collection: string, uid: number | undefined): boolean {
    return uid !== undefined && this.stored(collection).some((session) => session.uid === uid);
  }
}

function collectionKey(source: string, type: string): string {
  return `${source}||${type}`;
}

function randomData(rng: Rng): JsonObject {
  return { title: rng.pick(titles), owner: rng.pick(owners), similarities: String(rng.int(1, 40)) };
}

function urlOf(expression: string): string {
  return `\`\${BASE_URL}/api/sessions/\${${expression}.source}/\${${expression}.type}`;
}

function handleOf(state: SessionTraceState, expression: string): SessionHandle {
  const handle = state.handles.find((item) => item.expression === expression);
  if (!handle) throw new Error(`no session handle ${expression}`);
  return handle;
}

function initialState(rng: Rng, shared: SharedProgramParts): SessionTraceState {
  const state = new SessionTraceState(shared, new Map(), [], [], [], [], 1);
  const collectionCount = rng.int(1, 2);
  const chosen: { source: string; type: string }[] = [];
  while (chosen.length < collectionCount) {
    const candidate = { source: rng.pick(sources), type: rng.pick(sessionTypes) };
    if (!chosen.some((item) => item.source === candidate.source && item.type === candidate.type)) chosen.push(candidate);
  }
  for (const { source, type } of chosen) {
    const key = collectionKey(source, type);
    for (let index = rng.int(0, 3); index > 0; index -= 1) {
      const data = randomData(rng);
      if (state.stored(key).some((session) => canonicalJson(session.data) === canonicalJson(data))) continue;
      state.post(key, data);
      state.fixtureSessions.push({ source, type, data });
    }
  }
  const userCount = rng.int(1, 2);
  for (let index = 0; index < userCount; index += 1) {
    const { source, type } = rng.pick(chosen);
    const key = collectionKey(source, type);
    // Sometimes the user's data is already stored: POSTing it then returns the existing session's id.
    const stored = state.stored(key);
    const data = stored.length > 0 && rng.bool(0.2) ? copyData(rng.pick(stored).data) : randomData(rng);
    const name = shared.name('user_variable');
    shared.declare(name, `let ${name} = ${JSON.stringify({ source, type, data })};`);
    state.handles.push({ expression: name, variable: name, collection: key, source, type, data, uid: undefined, idExpression: undefined, idVariable: undefined });
    state.touched.push({ kind: 'handle', expression: name });
  }
  return state;
}

function candidates(state: SessionTraceState, rng: Rng): Candidate<SessionTraceState>[] {
  const result: Candidate<SessionTraceState>[] = [];
  const userHandles = state.handles.filter((handle) => handle.expression === handle.variable);
  for (const handle of userHandles) {
    result.push({
      transition: 'addSession',
      isApiCall: true,
      consumes: [handle.variable, handle.collection],
      parameterKey: `${handle.expression}:${canonicalJson(handle.data)}`,
      apply: (target) => {
        const current = handleOf(target, handle.expression);
        const response = target.shared.name('response');
        current.uid = target.post(current.collection, current.data);
        current.idExpression = `${response}.id`;
        current.idVariable = response;
        target.touched.push({ kind: 'handle', expression: current.expression });
        return {
          statements: [`let ${response} = (await axios.post(${urlOf(current.expression)}\`, ${current.expression}.data)).data;`],
          produces: [response],
        };
      },
    });
  }
  const seenCollections = new Set<string>();
  for (const handle of userHandles) {
    if (seenCollections.has(handle.collection)) continue;
    seenCollections.add(handle.collection);
    result.push({
      transition: 'getSessions',
      isApiCall: true,
      consumes: [handle.variable, handle.collection],
      parameterKey: handle.collection,
      apply: (target) => {
        const response = target.shared.name('response');
        const items = target.stored(handle.collection).map((session) => ({ uid: session.uid, data: copyData(session.data) }));
        addList(target, { name: response, collection: handle.collection, source: handle.source, type: handle.type, items });
        return { statements: [`let ${response} = (await axios.get(${urlOf(handle.expression)}\`)).data;`], produces: [response] };
      },
    });
    for (const field of editableFields) {
      const value = handle.data[field];
      if (typeof value !== 'string') continue;
      result.push({
        transition: 'querySessions',
        isApiCall: true,
        consumes: [handle.variable, handle.collection],
        parameterKey: `${handle.collection}:${field}=${value}`,
        apply: (target) => {
          const response = target.shared.name('response');
          const items = target.stored(handle.collection).filter((session) => session.data[field] === value)
            .map((session) => ({ uid: session.uid, data: copyData(session.data) }));
          addList(target, { name: response, collection: handle.collection, source: handle.source, type: handle.type, items });
          return {
            statements: [`let ${response} = (await axios.get(${urlOf(handle.expression)}/query\`, { params: { field: 'data.${field}', value: ${handle.expression}.data.${field} } })).data;`],
            produces: [response],
          };
        },
      });
    }
  }
  for (const handle of userHandles) {
    const field = rng.pick(editableFields);
    const value = handle.data[field];
    result.push({
      transition: 'fetchSessions',
      isApiCall: true,
      consumes: [handle.variable, handle.collection],
      parameterKey: `${handle.collection}:${field}=${JSON.stringify(value)}`,
      apply: (target) => {
        const response = target.shared.name('response');
        const items = target.stored(handle.collection).filter((session) => canonicalJson(session.data[field] ?? null) === canonicalJson(value ?? null))
          .map((session) => ({ uid: session.uid, data: copyData(session.data) }));
        addList(target, { name: response, collection: handle.collection, source: handle.source, type: handle.type, items });
        return {
          statements: [`let ${response} = (await axios.post(${urlOf(handle.expression)}/query/fetch\`, { 'data.${field}': ${handle.expression}.data.${field} })).data;`],
          produces: [response],
        };
      },
    });
  }
  for (const handle of state.handles) {
    if (handle.idExpression === undefined || !state.isStored(handle.collection, handle.uid)) continue;
    const consumes = [...new Set([handle.variable, handle.idVariable ?? handle.variable, handle.collection])];
    result.push({
      transition: 'getSession',
      isApiCall: true,
      consumes,
      parameterKey: `${handle.collection}:${handle.uid}`,
      apply: (target) => {
        const current = handleOf(target, handle.expression);
        const response = target.shared.name('response');
        const stored = target.stored(current.collection).find((session) => session.uid === current.uid);
        target.handles.push({
          expression: response, variable: response, collection: current.collection, source: current.source, type: current.type,
          data: copyData(stored?.data ?? {}), uid: current.uid, idExpression: `${response}.id`, idVariable: response,
        });
        target.touched.push({ kind: 'handle', expression: response });
        return { statements: [`let ${response} = (await axios.get(${urlOf(current.expression)}/\${${current.idExpression}}\`)).data;`], produces: [response] };
      },
    });
    const field = rng.pick(editableFields);
    const newValue = field === 'similarities' ? String(rng.int(41, 99)) : field === 'title' ? rng.pick(titles) : rng.pick(owners);
    const newData = { ...handle.data, [field]: newValue };
    const clash = state.stored(handle.collection).some((session) => session.uid !== handle.uid && canonicalJson(session.data) === canonicalJson(newData));
    if (newValue !== handle.data[field] && !clash) {
      result.push({
        transition: 'updateSession',
        isApiCall: true,
        consumes,
        parameterKey: `${handle.expression}:${field}=${newValue}`,
        apply: (target) => {
          const current = handleOf(target, handle.expression);
          current.data[field] = newValue;
          const stored = target.stored(current.collection).find((session) => session.uid === current.uid);
          if (stored) stored.data = copyData(current.data);
          // Other handles of the same session keep their (now stale) local copies, as in a real program.
          target.touched.push({ kind: 'handle', expression: current.expression });
          return {
            statements: [
              `${current.expression}.data.${field} = ${JSON.stringify(newValue)};`,
              `await axios.put(${urlOf(current.expression)}/\${${current.idExpression}}\`, ${current.expression}.data);`,
            ],
            produces: [],
          };
        },
      });
    }
    result.push({
      transition: 'deleteSession',
      isApiCall: true,
      consumes,
      parameterKey: `${handle.collection}:${handle.uid}`,
      apply: (target) => {
        const current = handleOf(target, handle.expression);
        const sessions = target.stored(current.collection);
        sessions.splice(sessions.findIndex((session) => session.uid === current.uid), 1);
        return { statements: [`await axios.delete(${urlOf(current.expression)}/\${${current.idExpression}}\`);`], produces: [] };
      },
    });
  }
  return result;
}

/** A listed response; its first and last elements become session handles with known ids. */
function addList(state: SessionTraceState, list: ListVariable): void {
  state.lists.push(list);
  state.touched.push({ kind: 'list', name: list.name });
  const indices = [...new Set([0, list.items.length - 1])].filter((index) => index >= 0 && index < list.items.length);
  for (const index of indices) {
    const item = list.items[index];
    const expression = `${list.name}[${index}]`;
    state.handles.push({
      expression, variable: list.name, collection: list.collection, source: list.source, type: list.type,
      data: copyData(item.data), uid: item.uid, idExpression: `${expression}.id`, idVariable: list.name,
    });
  }
}

function condition(state: SessionTraceState, rng: Rng): BranchCondition | undefined {
  for (const touch of [...state.touched].reverse()) {
    if (touch.kind === 'list') {
      const list = state.lists.find((item) => item.name === touch.name);
      if (list) return { lhs: `${list.name}.length`, value: list.items.length };
    } else {
      const handle = handleOf(state, touch.expression);
      const field = rng.pick(editableFields);
      const value = handle.data[field];
      if (typeof value === 'string') return { lhs: `${handle.expression}.data.${field}`, value };
    }
  }
  return undefined;
}

function resultExpression(state: SessionTraceState): string | undefined {
  const last = state.touched[state.touched.length - 1];
  if (!last) return undefined;
  return last.kind === 'list' ? last.name : last.expression;
}

export const sessionScenario: Scenario<SessionTraceState> = {
  id: 'session',
  apis: sessionApis,
  preamble: [`let BASE_URL = ${JSON.stringify(sessionServiceBaseUrl)};`],
  initialState,
  candidates,
  condition,
  resultExpression,
  fixtures: (state): JsonValue => ({ sessions: state.fixtureSessions }),
};
