// A reference adapter for `chatconform client`: no SDK, Node's fetch and eventsource-parser (the stream decoded
// incrementally by TextDecoderStream, the SSE framing by EventSourceParserStream).
//   npx chatconform client --command "node examples/clients/fetch.mjs"
import { EventSourceParserStream } from 'eventsource-parser/stream';

const ins = JSON.parse(process.env.CHATCONFORM_INSTRUCTION);
const base = process.env.OPENAI_BASE_URL;
const headers = { authorization: `Bearer ${process.env.OPENAI_API_KEY}`, 'content-type': 'application/json' };
const report = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code ?? null;
  }
}

/** POST with two retries of 429 and 5xx (retry-after honoured up to 2 s); the same model every time (section 7). */
async function post(body) {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${base}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.ok) return res;
    const err = new ApiError(res.status, await res.json().catch(() => null));
    if (attempt === 3 || !(res.status === 429 || res.status >= 500)) throw err;
    await new Promise((r) => setTimeout(r, Math.min(2000, Number(res.headers.get('retry-after') ?? 1) * 1000)));
  }
}

/** A streamed completion's message: the text deltas joined, tool calls assembled by index (id and name once). */
async function stream(body) {
  const res = await post({ ...body, stream: true });
  // Section 6 rule 5 (a final event without its blank line is still consumed) is not the WHATWG rule
  // eventsource-parser follows (an unterminated event at end of body is dropped): a blank line closes the body.
  const closed = new TransformStream({ transform: (text, out) => out.enqueue(text), flush: (out) => out.enqueue('\n\n') });
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(closed).pipeThrough(new EventSourceParserStream());
  let content = '';
  let usage;
  const calls = [];
  for await (const event of events) {
    if (event.data === '[DONE]') break; // the sentinel, not JSON
    const chunk = JSON.parse(event.data);
    if (chunk.error) throw new ApiError(200, chunk); // an in-stream error fails the answer (section 6 rule 10)
    if (chunk.usage) usage = chunk.usage;
    const delta = chunk.choices?.[0]?.delta ?? {};
    content += delta.content ?? '';
    for (const t of delta.tool_calls ?? []) {
      const call = (calls[t.index] ??= { id: t.id, type: 'function', function: { name: '', arguments: '' } });
      if (t.function?.name) call.function.name = t.function.name;
      call.function.arguments += t.function?.arguments ?? '';
    }
  }
  return { role: 'assistant', content: content === '' && calls.length > 0 ? null : content, ...(calls.length > 0 ? { tool_calls: calls.filter(Boolean) } : {}), ...(usage ? { usage } : {}) };
}

const complete = async (body) => (await post(body)).json();

try {
  // The live catalog decides the model and what it takes (sections 9 and 4.3): read it first, never hardcode ids.
  const entries = (await (await fetch(`${base}/models`, { headers })).json()).data;
  if (ins.kind === 'catalog') {
    report({ models: entries });
    process.exit(0);
  }
  const entry = ins.model ? entries.find((e) => e.id === ins.model) : entries.find((e) => ins.needs.every((flag) => e[flag] === true));
  const model = ins.model ?? entry?.id;
  if (!model) throw new Error(`no model of the catalog has ${ins.needs.join(', ')}`);
  const messages = entry?.supports_images === true ? ins.messages : ins.messages.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.filter((p) => p.type === 'text') } : m));

  if (ins.kind === 'stream') {
    const { content, usage } = await stream({ model, messages, ...(ins.stream_options ? { stream_options: ins.stream_options } : {}) });
    report({ text: content, model, ...(usage ? { usage } : {}) });
  } else if (ins.kind === 'tool-loop') {
    const ask = async (msgs) => (ins.stream ? stream({ model, messages: msgs, tools: ins.tools }) : (await complete({ model, messages: msgs, tools: ins.tools })).choices[0].message);
    const first = await ask(messages);
    const calls = first.tool_calls ?? [];
    const next = [...messages, { role: 'assistant', content: first.content, tool_calls: calls }, ...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: ins.tool_result }))];
    const final = await ask(next);
    // arguments is a JSON-encoded string (2.4): decoded here.
    report({ text: final.content, model, tool_calls: calls.map((c) => ({ id: c.id, name: c.function.name, arguments: JSON.parse(c.function.arguments) })) });
  } else if (ins.kind === 'search') {
    const first = await complete({ model, messages, web_search_options: ins.web_search_options });
    const answer = first.choices[0].message;
    // annotations and service_web_search are response-only (2.9): the message goes back with its content only.
    const next = await complete({ model, messages: [...messages, { role: 'assistant', content: answer.content }, { role: 'user', content: ins.follow_up }] });
    report({ text: answer.content, searches: first.usage?.service_web_search_calls ?? 0, follow_up_text: next.choices[0].message.content, model });
  } else {
    const answer = await complete({ model, messages });
    report({ text: answer.choices[0].message.content, model, usage: answer.usage });
  }
} catch (err) {
  report({ error: { message: String(err?.message ?? err), code: err?.code ?? null, status: err?.status ?? null } });
}
