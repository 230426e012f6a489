import Foundation

/// Malformed CSV, with the line where the problem is.
///
///     do { _ = try CSV.parse(Array("a,b\n1,\"2\n".utf8)) }
///     catch { print(error) }   // line 2: quoted field never closed (it opens on line 2)
public struct CSVError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line (physical line in the file) where the problem is.
    public let line: Int
    /// What is wrong.
    public let problem: String

    internal init(line: Int, _ problem: String) {
        self.line = line
        self.problem = problem
    }

    public var description: String { "line \(line): \(problem)" }
}
