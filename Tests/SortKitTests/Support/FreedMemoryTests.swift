import Foundation
import Testing

@testable import SortKit

@Suite("Freed memory")
struct FreedMemoryTests {
    @Test("glibc's malloc takes the server's thresholds (mapped blocks from 4 MB, trimmed arena tops past 1 MB)")
    func mallocSettings() {
        #if canImport(Glibc)
            // `mallopt` found by name and both values accepted (unless the environment sets
            // malloc's tunables itself); the effect on a served table's resident size is
            // measured by `Benchmarks/`.
            let tuned = ProcessInfo.processInfo.environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.") ?? false
            #expect(_keepResidentMemoryTight() == !tuned)
        #else
            #expect(!_keepResidentMemoryTight())
        #endif
    }

    @Test("A burst of trim requests makes one pending trim, and it runs")
    func coalescedTrims() async throws {
        #if canImport(Glibc)
            let before = _trimState.count
            for _ in 0..<1_000 { _returnFreedMemoryToSystemSoon() }
            var waited = 0
            while _trimState.pending, waited < 100 {
                try await Task.sleep(for: .milliseconds(50))
                waited += 1
            }
            #expect(!_trimState.pending, "a trim asked for 5 s ago hasn't run")
            // One trim for the burst (a few more if other tests asked for some meanwhile).
            let ran = _trimState.count - before
            #expect(ran >= 1 && ran <= 3, "\(ran) trims for a burst of 1,000 requests")
        #endif
    }
}
