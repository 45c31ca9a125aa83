#!/usr/bin/env python3
"""A reference adapter for `chatconform client` in Python, standard library only: urllib for HTTP and its own
server-sent-event reader (section 6: CR, LF or CRLF lines, data: with or without its space, events over several
data: lines, a final event without its blank line, UTF-8 decoded incrementally, [DONE], an error event).

    npx chatconform client -- python3 examples/clients/stdlib.py

The protocol is docs/client-conformance.md's: the instruction in CHATCONFORM_INSTRUCTION, one JSON report on stdout.
"""
import codecs
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request

INS = json.loads(os.environ["CHATCONFORM_INSTRUCTION"])
BASE = os.environ["OPENAI_BASE_URL"]
KEY = os.environ["OPENAI_API_KEY"]


class ApiError(Exception):
    def __init__(self, status, body):
        error = body.get("error") if isinstance(body, dict) else None
        super().__init__((error or {}).get("message") or f"HTTP {status}")
        self.status = status
        self.code = (error or {}).get("code")


def request(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method, headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"})
    return urllib.request.urlopen(req, timeout=60)


def post(body):
    """POST with two retries of 429 and 5xx (retry-after honoured up to 2 s); the same model every time (section 7)."""
    for attempt in range(1, 4):
        try:
            return request("POST", "/chat/completions", body)
        except urllib.error.HTTPError as err:
            try:
                payload = json.loads(err.read())
            except ValueError:
                payload = None
            if attempt == 3 or not (err.code == 429 or err.code >= 500):
                raise ApiError(err.code, payload) from None
            time.sleep(min(2.0, float(err.headers.get("retry-after") or 1)))


LINE_END = re.compile(r"\r\n|\r|\n")


def events(res):
    """The payloads of an SSE body, as they arrive."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    buf, data = "", []

    def lines(final):
        nonlocal buf
        while True:
            m = LINE_END.search(buf)
            # A CR at the end of what arrived may be the first half of a CRLF: wait for the next bytes.
            if m is None or (m.group() == "\r" and m.end() == len(buf) and not final):
                return
            line, buf = buf[: m.start()], buf[m.end() :]
            yield line

    def field(line):
        if line.startswith("data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)

    while True:
        chunk = res.read1(65536)
        if not chunk:
            break
        buf += decoder.decode(chunk)
        for line in lines(False):
            if line == "":
                if data:
                    yield "\n".join(data)
                data.clear()
            else:
                field(line)
    # End of body: what is left is the final event, with or without its blank line (section 6 rule 5).
    buf += decoder.decode(b"", final=True)
    for line in lines(True):
        if line == "":
            if data:
                yield "\n".join(data)
            data.clear()
        else:
            field(line)
    if buf:
        field(buf)
    if data:
        yield "\n".join(data)


def stream(body):
    """A streamed completion's message: the text deltas joined, tool calls assembled by index (id and name once)."""
    res = post({**body, "stream": True})
    content, usage, calls = "", None, {}
    for payload in events(res):
        if payload == "[DONE]":  # the sentinel, not JSON
            break
        chunk = json.loads(payload)
        if chunk.get("error"):  # an in-stream error fails the answer (section 6 rule 10)
            raise ApiError(200, chunk)
        if chunk.get("usage"):
            usage = chunk["usage"]
        choices = chunk.get("choices") or []
        delta = (choices[0].get("delta") if choices else None) or {}
        content += delta.get("content") or ""
        for t in delta.get("tool_calls") or []:
            call = calls.setdefault(t["index"], {"id": t.get("id"), "type": "function", "function": {"name": "", "arguments": ""}})
            fn = t.get("function") or {}
            if fn.get("name"):
                call["function"]["name"] = fn["name"]
            call["function"]["arguments"] += fn.get("arguments") or ""
    message = {"role": "assistant", "content": None if content == "" and calls else content}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message, usage


def complete(body):
    return json.loads(post(body).read())


def main():
    # The live catalog decides the model and what it takes (sections 9 and 4.3): read it first, never hardcode ids.
    entries = json.loads(request("GET", "/models").read())["data"]
    if INS["kind"] == "catalog":
        return {"models": entries}
    model = INS.get("model")
    entry = next((e for e in entries if e["id"] == model), None) if model else next((e for e in entries if all(e.get(f) is True for f in INS["needs"])), None)
    model = model or (entry or {}).get("id")
    if not model:
        raise Exception("no model of the catalog has " + ", ".join(INS["needs"]))
    messages = INS["messages"]
    if not (entry and entry.get("supports_images") is True):
        # No image part to an entry without supports_images true (4.3 rule 7): the text parts only.
        messages = [{**m, "content": [p for p in m["content"] if p.get("type") == "text"]} if isinstance(m.get("content"), list) else m for m in messages]

    kind = INS["kind"]
    if kind == "stream":
        body = {"model": model, "messages": messages}
        if "stream_options" in INS:
            body["stream_options"] = INS["stream_options"]
        message, usage = stream(body)
        return {"text": message["content"] or "", "model": model, **({"usage": usage} if usage else {})}
    if kind == "tool-loop":
        def ask(msgs):
            body = {"model": model, "messages": msgs, "tools": INS["tools"]}
            return stream(body)[0] if INS.get("stream") else complete(body)["choices"][0]["message"]

        first = ask(messages)
        calls = first.get("tool_calls") or []
        back = {"role": "assistant", "content": first.get("content"), "tool_calls": calls}
        results = [{"role": "tool", "tool_call_id": c["id"], "content": INS["tool_result"]} for c in calls]
        final = ask(messages + [back] + results)
        # arguments is a JSON-encoded string (2.4): decoded here.
        decoded = [{"id": c["id"], "name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])} for c in calls]
        return {"text": final.get("content"), "model": model, "tool_calls": decoded}
    if kind == "search":
        first = complete({"model": model, "messages": messages, "web_search_options": INS["web_search_options"]})
        answer = first["choices"][0]["message"]
        # annotations and service_web_search are response-only (2.9): the message goes back with its content only.
        nxt = complete({"model": model, "messages": messages + [{"role": "assistant", "content": answer.get("content")}, {"role": "user", "content": INS["follow_up"]}]})
        searches = (first.get("usage") or {}).get("service_web_search_calls", 0)
        return {"text": answer.get("content"), "searches": searches, "follow_up_text": nxt["choices"][0]["message"].get("content"), "model": model}
    answer = complete({"model": model, "messages": messages})
    return {"text": answer["choices"][0]["message"].get("content"), "model": model}


if __name__ == "__main__":
    try:
        out = main()
    except Exception as err:  # whatever goes wrong is reported, not thrown (the protocol)
        out = {"error": {"message": str(err), "code": getattr(err, "code", None), "status": getattr(err, "status", None)}}
    sys.stdout.write(json.dumps(out) + "\n")
