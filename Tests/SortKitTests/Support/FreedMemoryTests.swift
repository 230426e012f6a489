import Foundation
import Testing

@testable import SortKit

@Suite("Resident memory settings")
struct ResidentMemoryTests {
    @Test("glibc's malloc takes the server's thresholds (mapped blocks from 4 MB, trimmed arena tops past 1 MB)")
    func mallocSettings() {
        #if canImport(Glibc)
            // `mallopt` found by name and both values accepted; the effect on a served table's
            // resident size is measured by `Benchmarks/` (a process-wide value, not testable
            // beside the suite's other tests without their allocations in the numbers).
            #expect(_keepResidentMemoryTight())
            _returnFreedMemoryToSystem()
        #else
            #expect(!_keepResidentMemoryTight())
        #endif
    }
}
