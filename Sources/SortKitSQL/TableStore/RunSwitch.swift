/// When a background run of steps (``_TombstoneCompactor``, ``_IndexBuilder``) starts and ends:
/// a poke starts one unless one is going or runs are paused; a run ends when a step finds
/// nothing to do and no poke came after that step began (else a write's work could wait for
/// the next poke). Held in its owner's mutex.
///
///     if state.withLock({ $0.runs.poke(step) }) { Task.detached { await run(step) } }
struct _RunSwitch<Step> {
    private(set) var running = false
    private(set) var paused = false
    /// Raised by every poke.
    private(set) var pokes = 0
    /// The last poke's step, for ``resume()``.
    private(set) var step: Step?

    /// Records a poke with `step`; returns whether a run starts now.
    mutating func poke(_ step: Step) -> Bool {
        pokes += 1
        self.step = step
        guard !running, !paused else { return false }
        running = true
        return true
    }

    /// Stops runs from starting (a running one stops after its step: ``end(found:pokes:)``).
    mutating func pause() { paused = true }

    /// Lets runs start again; returns the last poke's step, to poke with.
    mutating func resume() -> Step? {
        paused = false
        return step
    }

    /// After a step that began when ``pokes`` was `pokes`: whether the run ends (nothing
    /// `found`, or paused), and if so marks it ended.
    mutating func end(found: Bool, pokes: Int) -> Bool {
        guard paused || (!found && self.pokes == pokes) else { return false }
        running = false
        return true
    }
}

/// A background run's step: a failure (another process holding the file's write lock past the
/// busy timeout) is tried again after 1, 2 and 4 s, then left (`nil`) for the next poke.
func _retrying<T: Sendable>(_ step: () async throws -> T) async -> T? {
    for failures in 0...3 {
        do {
            return try await step()
        } catch {
            if failures < 3 { try? await Task.sleep(for: .seconds(1 << failures)) }
        }
    }
    return nil
}
