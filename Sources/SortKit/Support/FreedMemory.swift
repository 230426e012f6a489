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

#if canImport(Glibc)
    /// glibc's `malloc_trim`, which Swift's Glibc module doesn't export (looked up once).
    private let _mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
#endif
