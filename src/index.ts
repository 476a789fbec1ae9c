/**
 * agent-trials: a bounded, streaming evaluation runner for AI agents.
 *
 * @since 0.1.0
 */
export * as Agent from "./Agent.ts"
export * as Errors from "./Errors.ts"
export * as Probe from "./Probe.ts"
export * as Runner from "./Runner.ts"
export * as Trial from "./Trial.ts"

export { Runner as RunnerService, runTrials } from "./Runner.ts"
export type { RunOptions } from "./Runner.ts"
export { AgentEvalTask, AgentEvalTrial, AgentOutput, TrialError } from "./Trial.ts"
export * as HttpAgent from "./agents/Http.ts"
export * as HttpErrors from "./agents/HttpErrors.ts"
export * as OpenAiAgent from "./agents/OpenAi.ts"
export * as Dataset from "./Dataset.ts"
export * as Options from "./Options.ts"
export * as Policy from "./Policy.ts"
export * as Results from "./Results.ts"
export * as SimAgent from "./agents/Sim.ts"
export * as ModuleAgent from "./agents/Module.ts"
export * as Summary from "./Summary.ts"
export { runUnits } from "./Runner.ts"
export { MaxFailuresExceeded, Timeout } from "./Policy.ts"
