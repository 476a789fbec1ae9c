/**
 * The run options that arrive as text, from a flag or an environment
 * variable: each is one Schema from a string to the value the runner uses.
 * The CLI flags decode with them, `Runner.layer` reads them through `Config`
 * with them, so a value is accepted or refused with the same words wherever
 * it comes from. Each lives beside what it configures; this module gathers
 * them under one name.
 *
 * A refusal reads `Expected <what>, got <value>`; `describe` names the
 * flag or variable it came from: `Expected --timeout to be a duration with a
 * unit, like 5s, 500ms or 2m, got "5" (did you mean 5s?)`.
 *
 * @since 0.1.0
 */
export { AgentSpec } from "../agents/AgentSpecOption.ts"
export { ByteSize } from "../internal/byteSize.ts"
export { Age as CacheAge, Cache, type Setting as CacheSetting } from "../cache/Setting.ts"
export { OnInvalid } from "../datasets/OnInvalidOption.ts"
export {
  Count,
  decode,
  describe,
  Duration,
  Epochs,
  fromConfig,
  InvalidOption,
  Margin,
  MaxFailures,
  NonNegativeDuration,
  Parallelism,
  Rate,
  RowCount,
  TokenCount,
  Usd
} from "../internal/options.ts"
export { Header, RequestBody, Seed, Temperature } from "../internal/requestOptions.ts"
export { ToolSpec } from "../agents/tools/SpecOption.ts"
export { MappingFromString as Mapping } from "../datasets/Mapping.ts"
export { PassK, StderrCluster, TaskPass, TaskPath } from "../summary/Options.ts"
