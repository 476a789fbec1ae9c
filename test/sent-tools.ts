/**
 * What the model server should receive as a request's `tools`, for the tests
 * of tools declared with Zod or the AI SDK (module and CLI alike).
 */

/** A tool as a chat completions request carries it. */
export const sentTool = (name: string, description: string, parameters: unknown) => ({
  type: "function",
  function: { name, description, parameters }
})

/** An object's JSON Schema as Zod 4 gives it: draft-07, the draft the AI SDK sends. */
export const zodObject = (properties: Record<string, unknown>, required: ReadonlyArray<string>) => ({
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties,
  required
})
