// A reference adapter for `chatconform client`: the official `openai` SDK speaking the protocol of
// docs/client-conformance.md (the instruction in CHATCONFORM_INSTRUCTION, one JSON report on stdout).
//   npx chatconform client --command "node examples/clients/openai.mjs"
import OpenAI from 'openai';

const ins = JSON.parse(process.env.CHATCONFORM_INSTRUCTION);
const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY, maxRetries: 2 });
const report = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

try {
  // The live catalog decides the model and what it takes (sections 9 and 4.3): read it first, never hardcode ids.
  const entries = [];
  for await (const entry of client.models.list()) entries.push(entry);
  if (ins.kind === 'catalog') {
    report({ models: entries });
    process.exit(0);
  }
  const entry = ins.model ? entries.find((e) => e.id === ins.model) : entries.find((e) => ins.needs.every((flag) => e[flag] === true));
  const model = ins.model ?? entry?.id;
  if (!model) throw new Error(`no model of the catalog has ${ins.needs.join(', ')}`);
  // No image part to an entry without supports_images true: send the text parts only.
  const messages = entry?.supports_images === true ? ins.messages : ins.messages.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.filter((p) => p.type === 'text') } : m));

  if (ins.kind === 'stream') {
    let text = '';
    let usage;
    const stream = await client.chat.completions.create({ model, messages, stream: true, ...(ins.stream_options ? { stream_options: ins.stream_options } : {}) });
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      text += chunk.choices?.[0]?.delta?.content ?? '';
    }
    report({ text, model, ...(usage ? { usage } : {}) });
  } else if (ins.kind === 'tool-loop') {
    // Streamed, the SDK's stream helper assembles the calls from their deltas.
    const ask = async (msgs) =>
      (ins.stream ? await client.chat.completions.stream({ model, messages: msgs, tools: ins.tools }).finalChatCompletion() : await client.chat.completions.create({ model, messages: msgs, tools: ins.tools })).choices[0].message;
    const first = await ask(messages);
    const calls = (first.tool_calls ?? []).map((c) => ({ id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } }));
    const results = calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: ins.tool_result }));
    const final = await ask([...messages, { role: 'assistant', content: first.content, tool_calls: calls }, ...results]);
    report({ text: final.content, model, tool_calls: calls.map((c) => ({ id: c.id, name: c.function.name, arguments: JSON.parse(c.function.arguments) })) });
  } else if (ins.kind === 'search') {
    const first = await client.chat.completions.create({ model, messages, web_search_options: ins.web_search_options });
    const answer = first.choices[0].message;
    // annotations and service_web_search are response-only (2.9): the message goes back with its content only.
    const next = await client.chat.completions.create({ model, messages: [...messages, { role: 'assistant', content: answer.content }, { role: 'user', content: ins.follow_up }] });
    report({ text: answer.content, searches: first.usage?.service_web_search_calls ?? 0, follow_up_text: next.choices[0].message.content, model });
  } else {
    const answer = await client.chat.completions.create({ model, messages });
    report({ text: answer.choices[0].message.content, model, usage: answer.usage });
  }
} catch (err) {
  report({ error: { message: String(err?.message ?? err), code: err?.code ?? null, status: err?.status ?? null } });
}
