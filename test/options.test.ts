/**
 * Each option is one Schema from text: what it accepts, what it refuses and in
 * which words, and that a flag, a `Config` variable and the library's own
 * check refuse a value with the same words.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Exit, Option, Schema } from "effect"
import * as Spec from "../src/agents/AgentKinds.ts"
import { checkEpochs, checkParallelism, MAX_EPOCHS } from "../src/domain/Errors.ts"
import * as Options from "../src/programs/Options.ts"
import * as Policy from "../src/runner/Policy.ts"

const decodeExit = <A>(schema: Schema.Codec<A, string>, text: string) => Schema.decodeUnknownExit(schema)(text)

const accepted = <A>(schema: Schema.Codec<A, string>, text: string): A => {
  const exit = decodeExit(schema, text)
  if (Exit.isFailure(exit)) assert.fail(`${JSON.stringify(text)} was refused: ${String(exit.cause)}`)
  return exit.value
}

/** The refusal as a flag would show it. */
const refusal = <A>(schema: Schema.Codec<A, string>, text: string, source = "--flag"): string => {
  const exit = Effect.runSyncExit(Options.decode(schema, source)(text))
  if (Exit.isSuccess(exit)) assert.fail(`${JSON.stringify(text)} was accepted as ${JSON.stringify(exit.value)}`)
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  assert.instanceOf(error, Options.InvalidOption)
  assert.strictEqual(error.source, source)
  return error.message
}

/** The refusal as `Runner.layer` or the CLI's fallback reads it from the variable. */
const configRefusal = <A>(schema: Schema.Codec<A, string>, name: string, value: unknown): string => {
  const exit = Effect.runSyncExit(
    Options.fromConfig(schema, name).pipe(
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ [name]: value })))
    )
  )
  if (Exit.isSuccess(exit)) assert.fail(`${name}=${String(value)} was accepted`)
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  assert.instanceOf(error, Options.InvalidOption)
  return error.message
}

const millis = (d: Duration.Duration) => Duration.toMillis(d)

describe("Options.Duration", () => {
  it("accepts a number with a unit: ms, s, m or min, h; decimals; a space before the unit", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["500ms", 500],
      ["1.5s", 1500],
      ["30s", 30_000],
      ["2m", 120_000],
      ["3min", 180_000],
      ["1h", 3_600_000],
      ["0.5ms", 0.5],
      ["250 ms", 250],
      [" 5s ", 5000]
    ]
    for (const [text, ms] of cases) assert.strictEqual(millis(accepted(Options.Duration, text)), ms, text)
  })

  it("refuses a bare number, suggesting seconds: `5` no longer means 5 ms", () => {
    assert.strictEqual(
      refusal(Options.Duration, "5", "--timeout"),
      `Expected --timeout to be a duration with a unit, like 5s, 500ms or 2m, got "5" (did you mean 5s?)`
    )
    assert.strictEqual(
      refusal(Options.Duration, "2.5", "--backoff"),
      `Expected --backoff to be a duration with a unit, like 5s, 500ms or 2m, got "2.5" (did you mean 2.5s?)`
    )
  })

  it("refuses zero, negative, unknown units and empty text, quoting the value", () => {
    assert.strictEqual(
      refusal(Options.Duration, "0s", "--timeout"),
      `Expected --timeout to be a duration greater than 0, like 5s, 500ms or 2m, got "0s"`
    )
    const huge = `1${"0".repeat(400)}s`
    assert.strictEqual(
      refusal(Options.Duration, huge, "--timeout"),
      `Expected --timeout to be a finite duration, like 5s, 500ms or 2m, got "${huge}"`
    )
    for (const text of ["-1s", "5 parsecs", "5sec", "1e3ms", "ms", "", "30 seconds"]) {
      assert.strictEqual(
        refusal(Options.Duration, text, "--timeout"),
        `Expected --timeout to be a duration with a unit, like 5s, 500ms or 2m, got ${JSON.stringify(text)}`,
        text
      )
    }
  })

  it("NonNegativeDuration also takes 0 (a simulated agent's jitter), and nothing without a unit", () => {
    assert.strictEqual(millis(accepted(Options.NonNegativeDuration, "0ms")), 0)
    assert.strictEqual(Policy.parseDurationMs("0ms"), 0)
    assert.strictEqual(Policy.parseDurationMs("1.5s"), 1500)
    assert.isUndefined(Policy.parseDurationMs("20"))
  })

  it.effect.prop(
    "writes a duration back as text it reads as the same duration",
    { ms: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000_000 })) },
    ({ ms }) =>
      Effect.sync(() => {
        const text = Schema.encodeSync(Options.Duration)(Duration.millis(ms))
        assert.strictEqual(millis(accepted(Options.Duration, text)), ms, text)
      })
  )
})

describe("Options.Rate", () => {
  it("accepts N/s, N/m, N/min and N/h with N > 0, decimals allowed", () => {
    const cases: ReadonlyArray<readonly [string, number, number]> = [
      ["10/s", 10, 1000],
      ["600/min", 600, 60_000],
      ["600/m", 600, 60_000],
      ["100/h", 100, 3_600_000],
      ["0.5/s", 0.5, 1000],
      [" 10 / s ", 10, 1000]
    ]
    for (const [text, limit, perMs] of cases) {
      const rate = accepted(Options.Rate, text)
      assert.deepStrictEqual([rate.limit, millis(rate.per)], [limit, perMs], text)
    }
  })

  it("refuses anything else, naming what it accepts", () => {
    for (const text of ["fast", "0/s", "10", "10/sec", "10/ms", "10/second", "-1/s", "/s", ""]) {
      assert.strictEqual(
        refusal(Options.Rate, text, "--rate"),
        `Expected --rate to be a rate above 0 per s, m (or min) or h, like 10/s or 600/min, got ${JSON.stringify(text)}`,
        text
      )
    }
  })

  it("writes a rate back as N/s, N/min or N/h", () => {
    for (const text of ["10/s", "600/min", "100/h", "0.5/s"]) {
      assert.strictEqual(Schema.encodeSync(Options.Rate)(accepted(Options.Rate, text)), text)
    }
  })
})

describe("Options.MaxFailures", () => {
  it("accepts a count or a percentage from 0% to 100%", () => {
    assert.deepStrictEqual(accepted(Options.MaxFailures, "25"), { _tag: "Count", count: 25 })
    assert.deepStrictEqual(accepted(Options.MaxFailures, "0"), { _tag: "Count", count: 0 })
    assert.deepStrictEqual(accepted(Options.MaxFailures, "10%"), { _tag: "Fraction", fraction: 0.1 })
    assert.deepStrictEqual(accepted(Options.MaxFailures, "100%"), { _tag: "Fraction", fraction: 1 })
    assert.deepStrictEqual(accepted(Options.MaxFailures, "0.7%"), { _tag: "Fraction", fraction: 0.007 })
  })

  it("keeps Policy.exceeded's semantics: exactly the budget is not over it", () => {
    const limit = accepted(Options.MaxFailures, "29%")
    assert.isFalse(Policy.exceeded(limit, 29, 100))
    assert.isTrue(Policy.exceeded(limit, 30, 100))
    assert.isTrue(Policy.exceeded(accepted(Options.MaxFailures, "0"), 1, 1))
    assert.deepStrictEqual(Policy.parseMaxFailures("10%"), accepted(Options.MaxFailures, "10%"))
  })

  it("refuses anything else with one message", () => {
    for (const text of ["", "-1", "1.5", "ten", "101%", "%", "10 %%"]) {
      assert.strictEqual(
        refusal(Options.MaxFailures, text, "--max-failures"),
        `Expected --max-failures to be a count like 25 or a percentage from 0% to 100% like 10%, got ${
          JSON.stringify(text)
        }`,
        text
      )
      assert.isUndefined(Policy.parseMaxFailures(text), text)
    }
  })

  it("writes a budget back as it reads it", () => {
    for (const text of ["25", "10%", "12.5%", "0.7%", "7%"]) {
      assert.strictEqual(Schema.encodeSync(Options.MaxFailures)(accepted(Options.MaxFailures, text)), text)
    }
  })
})

describe("Options.Parallelism and Options.Count", () => {
  it("accept integers from 1 (Parallelism) or 0 (Count) up", () => {
    assert.strictEqual(accepted(Options.Parallelism, "1"), 1)
    assert.strictEqual(accepted(Options.Parallelism, " 64 "), 64)
    assert.strictEqual(accepted(Options.Parallelism, String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER)
    assert.strictEqual(accepted(Options.Count, "0"), 0)
  })

  it("refuse with the words of the library's own check: a number unquoted, anything else quoted", () => {
    assert.strictEqual(
      refusal(Options.Parallelism, "0", "--parallelism"),
      "Expected --parallelism to be an integer from 1 and up, got 0"
    )
    assert.strictEqual(refusal(Options.Parallelism, "0", "--parallelism"), checkParallelism(0, "--parallelism")!.message)
    assert.strictEqual(refusal(Options.Parallelism, "1.5", "--parallelism"), checkParallelism(1.5, "--parallelism")!.message)
    assert.strictEqual(
      refusal(Options.Parallelism, "abc", "--parallelism"),
      `Expected --parallelism to be an integer from 1 and up, got "abc"`
    )
    assert.strictEqual(
      refusal(Options.Parallelism, "9007199254740993", "--parallelism"),
      "Expected --parallelism to be an integer from 1 and up, got 9007199254740993"
    )
    assert.strictEqual(refusal(Options.Count, "-1", "--retries"), "Expected --retries to be an integer from 0 and up, got -1")
    assert.strictEqual(refusal(Options.Count, "", "--retries"), `Expected --retries to be an integer from 0 and up, got ""`)
  })
})

describe("Options.Epochs", () => {
  it("accepts 1 to MAX_EPOCHS (10000) and refuses beyond with the words of the library's check", () => {
    assert.strictEqual(accepted(Options.Epochs, "1"), 1)
    assert.strictEqual(accepted(Options.Epochs, " 10000 "), MAX_EPOCHS)
    for (const bad of ["10001", "1000000000", "0", "1.5"]) {
      assert.strictEqual(refusal(Options.Epochs, bad, "--epochs"), `Expected --epochs to be an integer from 1 to 10000, got ${bad}`)
      assert.strictEqual(refusal(Options.Epochs, bad, "--epochs"), checkEpochs(Number(bad), "--epochs")!.message)
    }
    assert.strictEqual(refusal(Options.Epochs, "many", "--epochs"), `Expected --epochs to be an integer from 1 to 10000, got "many"`)
  })
})

describe("Options.OnInvalid", () => {
  it("accepts fail or skip, nothing else", () => {
    assert.strictEqual(accepted(Options.OnInvalid, "fail"), "fail")
    assert.strictEqual(accepted(Options.OnInvalid, "skip"), "skip")
    for (const text of ["bogus", "Skip", ""]) {
      assert.strictEqual(
        refusal(Options.OnInvalid, text, "--on-invalid"),
        `Expected --on-invalid to be fail or skip, got ${JSON.stringify(text)}`
      )
    }
  })
})

describe("Options.AgentSpec", () => {
  it("is AgentSpec.parse: the same specs, the same refusals", () => {
    assert.deepStrictEqual(accepted(Options.AgentSpec, "sim"), Spec.parse("sim"))
    assert.deepStrictEqual(accepted(Options.AgentSpec, "sim:latency=1ms,jitter=0ms"), Spec.parse("sim:latency=1ms,jitter=0ms"))
    assert.deepStrictEqual(accepted(Options.AgentSpec, "module:./a.ts#run"), { _tag: "Module", file: "./a.ts", exportName: "run" })
    assert.deepStrictEqual(accepted(Options.AgentSpec, "http://127.0.0.1:9/agent"), { _tag: "Http", url: "http://127.0.0.1:9/agent" })
    for (const text of ["ftp://x", "openai:nope", "module:", "sim:latency=20"]) {
      const message = Spec.parse(text)
      assert.isString(message, text)
      // The message names --agent already; a variable is named in front of it.
      assert.strictEqual(refusal(Options.AgentSpec, text, "--agent"), message)
      assert.strictEqual(refusal(Options.AgentSpec, text, "AGENT_TRIALS_AGENT"), `AGENT_TRIALS_AGENT: ${message}`)
    }
  })

  it("writes a spec back as text that parses to the same spec", () => {
    for (const text of ["sim", "sim:latency=5ms,fail=0", "module:./a.ts", "module:./a.ts#run", "https://x.test/a", "openai:https://x.test/v1"]) {
      const spec = accepted(Options.AgentSpec, text)
      assert.deepStrictEqual(accepted(Options.AgentSpec, Schema.encodeSync(Options.AgentSpec)(spec)), spec, text)
    }
  })
})

describe("one refusal, wherever the value comes from", () => {
  const cases = [
    ["AGENT_TRIALS_TIMEOUT", Options.Duration, "5"],
    ["AGENT_TRIALS_BACKOFF", Options.Duration, "0ms"],
    ["AGENT_TRIALS_RETRY_AFTER_MAX", Options.Duration, "1 minute"],
    ["AGENT_TRIALS_RATE", Options.Rate, "fast"],
    ["AGENT_TRIALS_MAX_FAILURES", Options.MaxFailures, "ten"],
    ["AGENT_TRIALS_PARALLELISM", Options.Parallelism, "0"],
    ["AGENT_TRIALS_RETRIES", Options.Count, "x"],
    ["AGENT_TRIALS_ON_INVALID", Options.OnInvalid, "bogus"]
  ] as const

  it("Config with the Schema refuses a variable in the words decode uses for it", () => {
    for (const [name, schema, value] of cases) {
      const expected = refusal(schema as Schema.Codec<unknown, string>, value, name)
      assert.match(expected, new RegExp(`^Expected ${name} to be `))
      assert.strictEqual(configRefusal(schema as Schema.Codec<unknown, string>, name, value), expected, name)
    }
    assert.strictEqual(
      configRefusal(Options.Duration, "AGENT_TRIALS_TIMEOUT", "5"),
      `Expected AGENT_TRIALS_TIMEOUT to be a duration with a unit, like 5s, 500ms or 2m, got "5" (did you mean 5s?)`
    )
  })

  it.effect("a variable that is not set is none; a set one is decoded", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, unknown>) =>
        Options.fromConfig(Options.Duration, "AGENT_TRIALS_TIMEOUT").pipe(
          Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
        )
      assert.isTrue(Option.isNone(yield* read({})))
      const some = yield* read({ AGENT_TRIALS_TIMEOUT: "30s" })
      assert.strictEqual(Option.map(some, millis).pipe(Option.getOrUndefined), 30_000)
    }))

  it("describe names the source", () => {
    assert.strictEqual(Options.describe("--x", "Expected a thing, got 1"), "Expected --x to be a thing, got 1")
    assert.strictEqual(Options.describe("--agent", "--agent ftp://x: unknown"), "--agent ftp://x: unknown")
    assert.strictEqual(Options.describe("AGENT_TRIALS_AGENT", "--agent ftp://x: unknown"), "AGENT_TRIALS_AGENT: --agent ftp://x: unknown")
  })
})

describe("Options.ByteSize (--max-download)", () => {
  it("a number and a unit, decimal (KB, MB, GB, TB) or binary (KiB ... TiB), any case; refused without a unit or at 0", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["500MB", 500e6], ["10GB", 10e9], ["10gb", 10e9], [" 1.5 GiB ", 1.5 * 2 ** 30], ["2KiB", 2048], ["7B", 7], ["1TB", 1e12]
    ]
    for (const [text, bytes] of cases) assert.strictEqual(accepted(Options.ByteSize, text), bytes, text)
    assert.strictEqual(
      refusal(Options.ByteSize, "500", "--max-download"),
      `Expected --max-download to be a size with a unit, like 500MB, 10GB or 1.5GiB, got "500" (did you mean 500MB?)`
    )
    assert.include(refusal(Options.ByteSize, "0MB", "AGENT_TRIALS_MAX_DOWNLOAD"), "Expected AGENT_TRIALS_MAX_DOWNLOAD to be a size above 0")
    assert.include(refusal(Options.ByteSize, "5 lbs", "--max-download"), "a size with a unit")
  })
})
