/// The result of turning a ``SortSpec`` into Foundation's form, or Foundation's form into a
/// spec: the value, and what it can't express.
///
///     let converted = try fields.sortDescriptors(for: SortSpec(parsing: "title"))
///     if !converted.isExact { print(converted.losses) }
///     // ["title: natural collation — Foundation's comparator compares text lexically"]
public struct SortConversion<Value> {
    /// The comparators or descriptors.
    public var value: Value
    /// What the value doesn't carry, one loss per modifier, in key order.
    public var losses: [SortConversionLoss]

    /// Whether the value sorts exactly as the spec does.
    public var isExact: Bool { losses.isEmpty }

    /// A conversion result.
    public init(value: Value, losses: [SortConversionLoss]) {
        self.value = value
        self.losses = losses
    }
}

extension SortConversion: Sendable where Value: Sendable {}

/// One thing a Foundation comparator can't express about a spec key.
public struct SortConversionLoss: Sendable, Hashable, CustomStringConvertible {
    /// What was lost.
    public enum Kind: Sendable, Hashable {
        /// An `enum=` order: Foundation sorts by the value itself.
        case enumOrder([String])
        /// A collation other than `binary` on text: Foundation compares lexically.
        case collation(Collation)
        /// `num` or `date` read from text: Foundation compares the text.
        case interpretation(SortSpec.Interpretation)
        /// A null placement other than `nulls-natural` on an optional field: Foundation puts
        /// `nil` first ascending and last descending.
        case nulls(NullPlacement)
        /// `abs`, `len` or `random=`: Foundation compares the value itself.
        case transform(SortSpec.Transform)
        /// `empty=null` on text: Foundation sorts blank text as text.
        case emptyIsNull
        /// Back from Foundation: a text comparator other than `lexical` (`localizedStandard`,
        /// say), read as the default collation, `natural`.
        case textComparator
    }

    /// The spec key's field.
    public var column: String
    /// What was lost.
    public var kind: Kind

    /// A loss.
    public init(column: String, kind: Kind) {
        self.column = column
        self.kind = kind
    }

    /// The loss in words, naming the field and the modifier.
    public var description: String {
        switch kind {
        case .enumOrder(let order):
            "\(column): enum=\(order.joined(separator: "|")) — Foundation sorts by the value, not an explicit order"
        case .collation(let collation):
            "\(column): \(SortSpec.Modifier.collation(collation)) collation — Foundation's comparator compares text lexically"
        case .interpretation(let interpretation):
            "\(column): \(SortSpec.Modifier.interpretation(interpretation)) — Foundation compares the text itself"
        case .nulls(let placement):
            "\(column): \(SortSpec.Modifier.nulls(placement)) — Foundation puts nil first ascending, last descending"
        case .transform(let transform):
            "\(column): \(SortSpec.Modifier.transform(transform)) — Foundation compares the value itself"
        case .emptyIsNull:
            "\(column): empty=null — Foundation sorts blank text as text, not as nil"
        case .textComparator:
            "\(column): Foundation's text comparator isn't lexical — read as the natural collation"
        }
    }
}
