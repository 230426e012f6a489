import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Gives memory the process has freed back to the system. Work done on several threads
/// allocates in several of glibc's malloc arenas, which keep freed memory and count it in the
/// process's resident size until trimmed: a file sort's budget (`--max-memory`) and a server's
/// index budgets bound what is *held*, and this makes the resident size follow. A no-op where
/// there is nothing to trim (Darwin returns freed pages itself).
package func _returnFreedMemoryToSystem() {
    #if canImport(Glibc)
        _ = _mallocTrim?(0)
    #endif
}

/// Sets glibc's malloc for a long-running server that holds big tables: blocks of 4 MB and
/// more are mapped on their own (given back when freed: an index's columns and rankings, a
/// sort's scratch arrays), smaller ones come from the arenas, and an arena gives back the free
/// memory at its top once it passes 1 MB. `true` when both settings took.
///
/// Why: glibc's default raises both thresholds as big blocks are freed, up to 32 MB for
/// `mmap` and 64 MB for the top of an arena, and `malloc_trim` releases free chunks inside an
/// arena but not a thread arena's top. A server that imported a 1M-row table kept 30–65 MB of
/// such free memory resident (anonymous 205–237 MiB after the import against 165 MiB with these
/// settings; the index itself is 161 MiB), and a first page by `-status,title` left 12 MB more.
/// Import times didn't change (alternating runs). Set at start-up by `sortkit serve`; a program
/// that embeds the server sets the same with
/// `GLIBC_TUNABLES=glibc.malloc.trim_threshold=1048576:glibc.malloc.mmap_threshold=4194304`.
/// A no-op (`false`) where malloc isn't glibc's, and when `GLIBC_TUNABLES` sets any
/// `glibc.malloc.` value: the operator's settings stand.
///
///     _ = _keepResidentMemoryTight()   // first thing in `sortkit serve`
@discardableResult
package func _keepResidentMemoryTight() -> Bool {
    #if canImport(Glibc)
        guard let mallopt = _mallopt, getenv("GLIBC_TUNABLES").map({ !String(cString: $0).contains("glibc.malloc.") }) ?? true else {
            return false
        }
        // M_MMAP_THRESHOLD (-3) first: setting either value stops glibc's own adjusting.
        return mallopt(-3, 4 << 20) == 1 && mallopt(-1, 1 << 20) == 1
    #else
        return false
    #endif
}

#if canImport(Glibc)
    /// glibc's `malloc_trim`, which Swift's Glibc module doesn't export (looked up once).
    private let _mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// glibc's `mallopt(parameter, value)`, likewise not exported.
    private let _mallopt: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "mallopt") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()
#endif

/// ``_returnFreedMemoryToSystem()`` on another task, at most once a second: a server calls
/// this after work that freed megabytes (an order built, a big sort kept), and a burst of
/// such requests makes one trim, not one each (`malloc_trim` holds each arena's lock while it
/// walks it). Memory freed while a trim runs is trimmed by the next one a caller asks for.
/// The trim runs at the default priority, not `.background`: on Linux that is nice 10, and a
/// starved trimmer holding an arena's lock under load stalls every thread that allocates.
///
///     cache.install(ranking)
///     _returnFreedMemoryToSystemSoon()
package func _returnFreedMemoryToSystemSoon() {
    #if canImport(Glibc)
        let start = _trims.withLock { state in
            guard !state.pending else { return false }
            state.pending = true
            return true
        }
        guard start else { return }
        Task.detached {
            let wait = _trims.withLock { state in state.last.map { .seconds(1) - (ContinuousClock.now - $0) } ?? .zero }
            if wait > .zero { try? await Task.sleep(for: wait) }
            _trims.withLock { state in
                state.pending = false
                state.last = .now
                state.count += 1
            }
            _returnFreedMemoryToSystem()
        }
    #endif
}

#if canImport(Glibc)
    /// Whether a trim is waiting to run, when the last one started, and how many have.
    private let _trims = Mutex<(pending: Bool, last: ContinuousClock.Instant?, count: Int)>((false, nil, 0))
#endif

/// Whether a trim asked for by ``_returnFreedMemoryToSystemSoon()`` is still to run, and how
/// many have run (for tests).
package var _trimState: (pending: Bool, count: Int) {
    #if canImport(Glibc)
        _trims.withLock { ($0.pending, $0.count) }
    #else
        (false, 0)
    #endif
}
