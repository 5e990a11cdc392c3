#!/usr/bin/env node
import { McpServer } from "@modelcontextprotocol/server";
// Example server: a small notebook kept in memory for the life of the process.
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

interface Note {
  id: number;
  title: string;
  body: string;
  tags: string[];
  createdAt: string;
}

const notes = new Map<number, Note>();
let nextId = 1;
const server = new McpServer({ name: "notes", version: "0.1.0" });
const reply = (value: unknown) => ({
  content: [
    {
      type: "text" as const,
      text: typeof value === "string" ? value : JSON.stringify(value, null, 2),
    },
  ],
});
const fail = (message: string) => ({
  content: [{ type: "text" as const, text: message }],
  isError: true,
});

server.registerTool(
  "add_note",
  {
    description: "Save a note with a title, a body and optional tags. Returns the new note's id.",
    inputSchema: z.object({
      title: z.string().min(1),
      body: z.string(),
      tags: z.array(z.string()).optional(),
    }),
  },
  ({ title, body, tags }) => {
    const note: Note = {
      id: nextId++,
      title,
      body,
      tags: tags ?? [],
      createdAt: new Date().toISOString(),
    };
    notes.set(note.id, note);
    return reply(`saved note ${note.id}: ${title}`);
  },
);
server.registerTool(
  "list_notes",
  {
    description: "List every note's id, title and tags, optionally only those with a tag.",
    inputSchema: z.object({ tag: z.string().optional() }),
  },
  ({ tag }) =>
    reply(
      [...notes.values()]
        .filter((n) => tag === undefined || n.tags.includes(tag))
        .map(({ id, title, tags }) => ({ id, title, tags })),
    ),
);
server.registerTool(
  "read_note",
  { description: "Read one note in full by id.", inputSchema: z.object({ id: z.number().int() }) },
  ({ id }) => {
    const note = notes.get(id);
    return note ? reply(note) : fail(`no note ${id}; list_notes shows the ids`);
  },
);
server.registerTool(
  "search_notes",
  {
    description: "Find notes whose title or body contains the text (case-insensitive).",
    inputSchema: z.object({ text: z.string().min(1) }),
  },
  ({ text }) => {
    const needle = text.toLowerCase();
    return reply(
      [...notes.values()]
        .filter(
          (n) => n.title.toLowerCase().includes(needle) || n.body.toLowerCase().includes(needle),
        )
        .map(({ id, title }) => ({ id, title })),
    );
  },
);
server.registerTool(
  "delete_note",
  { description: "Delete a note by id.", inputSchema: z.object({ id: z.number().int() }) },
  ({ id }) =>
    notes.delete(id)
      ? reply(`deleted note ${id}`)
      : fail(`no note ${id}; list_notes shows the ids`),
);

await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
