//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// The four APIs: each parses a request into messages and tools, and
// writes an answer, as one JSON body or as server-sent events.

// sse writes server-sent events.
type sse struct{ w http.ResponseWriter }

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

// event writes one event; an empty name writes a data line alone.
func (e sse) event(name string, data any) {
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	b, ok := data.([]byte)
	if !ok {
		b, _ = json.Marshal(data)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// texts returns the text of a content value that is a string or a list of
// parts with a "text".
func texts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Type, Text string
	}
	json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return out
}

// props lists the property names of a JSON schema.
func props(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	var out []string
	for p := range s.Properties {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (s *server) record(req *request, a answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.call != nil {
		req.reply = "call " + a.call.name + " " + a.call.args
	} else {
		req.reply = "text " + a.text
	}
}

// --- Anthropic Messages ---

func (s *server) anthropic(w http.ResponseWriter, req *request, sc scenario) error {
	var body struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.body, &body); err != nil {
		return err
	}
	for _, m := range body.Messages {
		msg := message{role: m.Role, texts: texts(m.Content)}
		var blocks []struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				msg.calls = append(msg.calls, call{id: b.ID, name: b.Name, args: string(b.Input)})
			case "tool_result":
				msg.results = append(msg.results, result{id: b.ToolUseID, text: strings.Join(texts(b.Content), "\n")})
			}
		}
		req.msgs = append(req.msgs, msg)
	}
	for _, t := range body.Tools {
		req.tools = append(req.tools, tool{name: t.Name, props: props(t.InputSchema)})
	}
	req.stream = body.Stream
	a := decide(req.msgs, req.tools, sc)
	s.record(req, a)
	block := map[string]any{"type": "text", "text": a.text}
	stop := "end_turn"
	if a.call != nil {
		block = map[string]any{"type": "tool_use", "id": a.call.id, "name": a.call.name, "input": json.RawMessage(a.call.args)}
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	msg := map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": body.Model,
		"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage}
	if !body.Stream {
		return json.NewEncoder(w).Encode(msg)
	}
	e := newSSE(w)
	start := map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": body.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
	e.event("message_start", map[string]any{"type": "message_start", "message": start})
	if a.call != nil {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": a.call.id, "name": a.call.name, "input": map[string]any{}}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": a.call.args}})
	} else {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": a.text}})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
	return nil
}

// --- OpenAI Chat Completions ---

func (s *server) chat(w http.ResponseWriter, req *request, sc scenario) error {
	var body struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.body, &body); err != nil {
		return err
	}
	for _, m := range body.Messages {
		msg := message{role: m.Role}
		switch m.Role {
		case "tool":
			msg.role = "user"
			msg.results = append(msg.results, result{id: m.ToolCallID, text: strings.Join(texts(m.Content), "\n")})
		default:
			msg.texts = texts(m.Content)
		}
		for _, c := range m.ToolCalls {
			msg.calls = append(msg.calls, call{id: c.ID, name: c.Function.Name, args: c.Function.Arguments})
		}
		// Consecutive tool results are one turn.
		if n := len(req.msgs); n > 0 && len(msg.results) > 0 && len(req.msgs[n-1].results) > 0 {
			req.msgs[n-1].results = append(req.msgs[n-1].results, msg.results...)
			continue
		}
		req.msgs = append(req.msgs, msg)
	}
	for _, t := range body.Tools {
		req.tools = append(req.tools, tool{name: t.Function.Name, props: props(t.Function.Parameters)})
	}
	req.stream = body.Stream
	a := decide(req.msgs, req.tools, sc)
	s.record(req, a)
	finish := "stop"
	delta := map[string]any{"role": "assistant", "content": a.text}
	if a.call != nil {
		finish = "tool_calls"
		delta = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": a.call.id, "type": "function",
			"function": map[string]any{"name": a.call.name, "arguments": a.call.args}}}}
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	if !body.Stream {
		msg := map[string]any{"role": "assistant", "content": delta["content"]}
		if a.call != nil {
			msg["tool_calls"] = delta["tool_calls"]
		}
		return json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
			"model": body.Model, "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
	}
	e := newSSE(w)
	chunk := func(delta any, finish any, usage any) map[string]any {
		c := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	e.event("", chunk(delta, nil, nil))
	e.event("", chunk(map[string]any{}, finish, usage))
	e.event("", []byte("[DONE]"))
	return nil
}

// --- OpenAI Responses ---

func (s *server) responses(w http.ResponseWriter, req *request, sc scenario) error {
	var body struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Input  []struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Input     string          `json:"input"`
			Output    json.RawMessage `json:"output"`
		} `json:"input"`
		Tools []struct {
			Type       string          `json:"type"`
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.body, &body); err != nil {
		return err
	}
	for _, it := range body.Input {
		switch it.Type {
		case "message", "":
			req.msgs = append(req.msgs, message{role: it.Role, texts: texts(it.Content)})
		case "function_call", "custom_tool_call", "local_shell_call":
			args := it.Arguments
			if it.Type == "custom_tool_call" {
				args = it.Input
			}
			req.msgs = append(req.msgs, message{role: "assistant", calls: []call{{id: it.CallID, name: it.Name, args: args}}})
		case "function_call_output", "custom_tool_call_output":
			out := strings.Join(texts(it.Output), "\n")
			if n := len(req.msgs); n > 0 && len(req.msgs[n-1].results) > 0 {
				req.msgs[n-1].results = append(req.msgs[n-1].results, result{id: it.CallID, text: out})
				continue
			}
			req.msgs = append(req.msgs, message{role: "user", results: []result{{id: it.CallID, text: out}}})
		}
	}
	for _, t := range body.Tools {
		req.tools = append(req.tools, tool{name: t.Name, props: props(t.Parameters), custom: t.Type == "custom"})
	}
	req.stream = body.Stream
	a := decide(req.msgs, req.tools, sc)
	s.record(req, a)
	item := map[string]any{"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}}}
	if a.call != nil {
		item = map[string]any{"type": "function_call", "id": "fc_fake", "call_id": a.call.id, "name": a.call.name,
			"arguments": a.call.args, "status": "completed"}
		if t := findTool(req.tools, []string{a.call.name}); t != nil && t.custom {
			item = map[string]any{"type": "custom_tool_call", "id": "ctc_fake", "call_id": a.call.id, "name": a.call.name,
				"input": a.call.args, "status": "completed"}
		}
	}
	usage := map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}
	resp := func(status string, output []any) map[string]any {
		r := map[string]any{"id": "resp_fake", "object": "response", "created_at": 0, "status": status,
			"model": body.Model, "output": output}
		if status == "completed" {
			r["usage"] = usage
		}
		return r
	}
	if !body.Stream {
		return json.NewEncoder(w).Encode(resp("completed", []any{item}))
	}
	e := newSSE(w)
	e.event("response.created", map[string]any{"type": "response.created", "response": resp("in_progress", []any{})})
	e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	if a.call == nil {
		e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": "msg_fake",
			"output_index": 0, "content_index": 0, "delta": a.text})
	}
	e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	e.event("response.completed", map[string]any{"type": "response.completed", "response": resp("completed", []any{item})})
	return nil
}

// --- Gemini ---

func (s *server) gemini(w http.ResponseWriter, req *request, sc scenario) error {
	var body struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         string `json:"text"`
				Thought      bool   `json:"thought"`
				FunctionCall *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
				FunctionResponse *struct {
					ID       string          `json:"id"`
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name                 string          `json:"name"`
				Parameters           json.RawMessage `json:"parameters"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.body, &body); err != nil {
		return err
	}
	for _, c := range body.Contents {
		msg := message{role: c.Role}
		if c.Role == "model" {
			msg.role = "assistant"
		}
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				// Gemini matches a result to its call by name (and id, when set).
				msg.calls = append(msg.calls, call{id: p.FunctionCall.Name, name: p.FunctionCall.Name, args: string(p.FunctionCall.Args)})
			case p.FunctionResponse != nil:
				msg.results = append(msg.results, result{id: p.FunctionResponse.Name, text: string(p.FunctionResponse.Response)})
			case p.Text != "" && !p.Thought:
				msg.texts = append(msg.texts, p.Text)
			}
		}
		req.msgs = append(req.msgs, msg)
	}
	for _, t := range body.Tools {
		for _, f := range t.FunctionDeclarations {
			schema := f.Parameters
			if schema == nil {
				schema = f.ParametersJSONSchema
			}
			req.tools = append(req.tools, tool{name: f.Name, props: props(schema)})
		}
	}
	a := decide(req.msgs, req.tools, sc)
	var gen struct {
		GenerationConfig struct {
			ResponseMimeType string `json:"responseMimeType"`
		} `json:"generationConfig"`
	}
	json.Unmarshal(req.body, &gen)
	if a.call == nil && gen.GenerationConfig.ResponseMimeType == "application/json" {
		// Gemini CLI's own questions (which model, who speaks next): one
		// answer for all of them.
		a.text = `{"reasoning":"fake","model_choice":"flash","next_speaker":"user","complexity_reasoning":"fake","complexity_score":1}`
	}
	s.record(req, a)
	part := map[string]any{"text": a.text}
	if a.call != nil {
		part = map[string]any{"functionCall": map[string]any{"name": a.call.name, "args": json.RawMessage(a.call.args)}}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  "fake-model",
	}
	if !req.stream {
		return json.NewEncoder(w).Encode(resp)
	}
	newSSE(w).event("", resp)
	return nil
}
