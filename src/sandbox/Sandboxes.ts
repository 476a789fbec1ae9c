/**
 * The sandboxes by name, one line each, and the layer that provides one.
 *
 * @since 0.9.0
 */
import { Effect, Layer } from "effect"
import { bwrap } from "./Bwrap.ts"
import { none } from "./None.ts"
import { type Implementation, type Kind, Sandbox } from "./Sandbox.ts"

/**
 * Every implementation, by its `--sandbox` name.
 *
 * @category registry
 * @since 0.9.0
 */
export const sandboxes: { readonly [K in Kind]: Implementation } = {
  none,
  bwrap
}

/**
 * The `Sandbox` service for `kind`, after its check: a sandbox that cannot
 * work here fails the layer with `SandboxUnavailable` (exit 2) before
 * anything runs in it.
 *
 * @category layers
 * @since 0.9.0
 */
export const layer = (kind: Kind) => Layer.effect(Sandbox, sandboxes[kind].check().pipe(Effect.as(sandboxes[kind])))
