import Foundation

/// A sort spec that can't be parsed or doesn't fit the data it is applied to.
///
/// The message names the problem, the offending token and its position (1-based, in
/// characters) where there is one:
///
///     do { _ = try SortSpec(parsing: "title:upper") }
///     catch { print(error) }
///     // unknown modifier 'upper' at position 7 in sort spec "title:upper"
///     //   (expected num, text, date, binary, nocase, fold, natural, nulls-first, nulls-last,
///     //   nulls-natural or enum=a|b|c)
public struct SortSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case syntax
        case unknownColumn
    }

    private let kind: Kind
    /// A readable message naming the problem.
    public let message: String
    /// The 1-based character position of the offending token in the spec, if any.
    public let position: Int?

    private init(_ kind: Kind, _ message: String, position: Int? = nil) {
        self.kind = kind
        self.message = message
        self.position = position
    }

    public var description: String { message }

    /// Whether the error is an unknown column (as opposed to bad syntax).
    public var isUnknownColumn: Bool { kind == .unknownColumn }

    static func syntax(_ problem: String, at position: Int, in spec: String, hint: String? = nil) -> SortSpecError {
        let suffix = hint.map { " (\($0))" } ?? ""
        return SortSpecError(.syntax, "\(problem) at position \(position) in sort spec \"\(spec)\"\(suffix)", position: position)
    }

    /// Two keys that read the same column the same way.
    static func repeatedKey(_ message: String, in spec: String) -> SortSpecError {
        SortSpecError(.syntax, "\(message) in sort spec \"\(spec)\"")
    }

    /// An unknown column, listing the known ones.
    public static func unknownColumn(_ name: String, known: [String]) -> SortSpecError {
        let list = known.map { "'\($0)'" }.joined(separator: ", ")
        return SortSpecError(.unknownColumn, "unknown column '\(name)' (columns: \(list))")
    }

    /// A Foundation comparator or descriptor whose key path is none of the named fields'.
    public static func unknownKeyPath(_ keyPath: AnyKeyPath, known: [String]) -> SortSpecError {
        let list = known.map { "'\($0)'" }.joined(separator: ", ")
        return SortSpecError(.unknownColumn, "no sort field for key path \(keyPath) (fields: \(list))")
    }
}
