import Foundation

/// A row type's sortable properties by name: what turns a ``SortSpec`` — text a user picked,
/// saved or sent — into ``SortKey``s, Foundation `KeyPathComparator`s or `SortDescriptor`s
/// (for SwiftData's `@Query(sort:)` and `FetchDescriptor`), and those back into a spec.
///
///     struct Book { var title: String; var price: Double?; var status: Status; var statusRank: Int }
///     enum Status: CaseIterable { case todo, reading, done }
///
///     let fields = SortFields<Book>()
///         .field("title", \.title)
///         .field("price", \.price)
///         .field("status", declaredOrderOf: \.status, storedRank: \.statusRank)
///
///     let spec = try SortSpec(parsing: "status,-price,title:binary")
///     books.sorted(using: try fields.sortKeys(for: spec))        // SortKit's semantics
///     let query = try fields.sortDescriptors(for: spec)
///     query.value     // [SortDescriptor(\.statusRank), SortDescriptor(\.price, order: .reverse),
///                     //  SortDescriptor(\.title, comparator: .lexical)]
///     query.losses    // ["price: nulls-last — Foundation puts nil first ascending, last descending"]
///     try fields.spec(from: query.value).value.description   // "status,-price:nulls-natural,title:binary"
///
/// Foundation's comparators can't express everything a spec can: an `enum=` order, a collation
/// other than `binary`, text read as numbers or dates, and nulls placed other than "smallest".
/// A conversion reports each of those in ``SortConversion/losses`` rather than dropping it
/// silently; ``sortKeys(for:)`` keeps them all.
public struct SortFields<Row>: Sendable {
    /// One named property.
    public struct Field: Sendable {
        /// The name a spec uses.
        public let name: String
        /// Whether the property is optional, so that where Foundation puts `nil` matters.
        public let isOptional: Bool
        /// Whether the property is text, so that a collation applies.
        public let isText: Bool
        /// Whether the property is an enum sorted in declared case order through a stored rank.
        public let isDeclaredOrder: Bool
        /// Every key path that stands for this field: its own, and a stored rank's.
        internal let keyPaths: [_KeyPathBox]
        /// The property's sort value.
        internal let value: @Sendable (Row) -> SortValue
        /// The property's text, which an `enum=` order lists (an enum's case name).
        internal let text: @Sendable (Row) -> String?
        /// The comparator for an order; text fields compare with the string comparator given.
        internal let comparator: @Sendable (SortOrder, String.StandardComparator) -> KeyPathComparator<Row>
        internal let descriptor: @Sendable (SortOrder, String.StandardComparator) -> SortDescriptor<Row>
    }

    /// The fields, in the order they were added.
    public private(set) var fields: [Field] = []

    /// No fields yet; add them with the `field` methods.
    public init() {}

    private func adding(_ field: Field) -> SortFields {
        precondition(!fields.contains { $0.name == field.name }, "SortFields: a field named '\(field.name)' is already there")
        var copy = self
        copy.fields.append(field)
        return copy
    }

    /// Adds a text property, compared under the spec key's collation.
    ///
    ///     SortFields<Book>().field("title", \.title)
    public func field(_ name: String, _ keyPath: any KeyPath<Row, String> & Sendable) -> SortFields {
        adding(
            Field(
                name: name, isOptional: false, isText: true, isDeclaredOrder: false, keyPaths: [_KeyPathBox(keyPath)],
                value: { .string($0[keyPath: keyPath]) }, text: { $0[keyPath: keyPath] },
                comparator: { KeyPathComparator(keyPath, comparator: $1, order: $0) },
                descriptor: { SortDescriptor(keyPath, comparator: $1, order: $0) }))
    }

    /// Adds an optional text property; `nil` is null.
    public func field(_ name: String, _ keyPath: any KeyPath<Row, String?> & Sendable) -> SortFields {
        adding(
            Field(
                name: name, isOptional: true, isText: true, isDeclaredOrder: false, keyPaths: [_KeyPathBox(keyPath)],
                value: { $0[keyPath: keyPath].map(SortValue.string) ?? .null }, text: { $0[keyPath: keyPath] },
                comparator: { KeyPathComparator(keyPath, comparator: $1, order: $0) },
                descriptor: { SortDescriptor(keyPath, comparator: $1, order: $0) }))
    }

    /// Adds a comparable property that has a sort value: a number, a date, your own
    /// ``SortValueConvertible`` type.
    ///
    ///     SortFields<Book>().field("published", \.published)
    public func field<Value: SortValueConvertible & Comparable & SendableMetatype>(
        _ name: String, _ keyPath: any KeyPath<Row, Value> & Sendable
    ) -> SortFields {
        adding(
            Field(
                name: name, isOptional: false, isText: false, isDeclaredOrder: false, keyPaths: [_KeyPathBox(keyPath)],
                value: { $0[keyPath: keyPath].sortValue }, text: { String(describing: $0[keyPath: keyPath]) },
                comparator: { order, _ in KeyPathComparator(keyPath, order: order) },
                descriptor: { order, _ in SortDescriptor(keyPath, order: order) }))
    }

    /// Adds an optional comparable property; `nil` is null.
    public func field<Value: SortValueConvertible & Comparable & SendableMetatype>(
        _ name: String, _ keyPath: any KeyPath<Row, Value?> & Sendable
    ) -> SortFields {
        adding(
            Field(
                name: name, isOptional: true, isText: false, isDeclaredOrder: false, keyPaths: [_KeyPathBox(keyPath)],
                value: { $0[keyPath: keyPath]?.sortValue ?? .null }, text: { $0[keyPath: keyPath].map { String(describing: $0) } },
                comparator: { order, _ in KeyPathComparator(keyPath, order: order) },
                descriptor: { order, _ in SortDescriptor(keyPath, order: order) }))
    }

    /// Adds an enum sorted in the order its cases are declared. A database sorts an enum by
    /// its raw value, so Foundation's comparators and descriptors sort by `storedRank`, a
    /// property the row keeps equal to the case's ``Swift/CaseIterable/declaredOrderRank``.
    ///
    ///     struct Task { var status: Status { didSet { statusRank = status.declaredOrderRank } }
    ///                   var statusRank: Int }
    ///     SortFields<Task>().field("status", declaredOrderOf: \.status, storedRank: \.statusRank)
    public func field<Value: CaseIterable & Equatable & SendableMetatype>(
        _ name: String, declaredOrderOf keyPath: any KeyPath<Row, Value> & Sendable,
        storedRank: any KeyPath<Row, Int> & Sendable
    ) -> SortFields where Value.AllCases: Sendable {
        let order = Array(Value.allCases)
        let ranks = _Ranks(order)
        return adding(
            Field(
                name: name, isOptional: false, isText: false, isDeclaredOrder: true,
                keyPaths: [_KeyPathBox(keyPath), _KeyPathBox(storedRank)],
                value: { ranks.rank(of: $0[keyPath: keyPath]) }, text: { String(describing: $0[keyPath: keyPath]) },
                comparator: { order, _ in KeyPathComparator(storedRank, order: order) },
                descriptor: { order, _ in SortDescriptor(storedRank, order: order) }))
    }

    /// The field named `name`: an exact match, else the only match ignoring case.
    ///
    /// - Throws: ``SortSpecError`` naming the unknown field and listing the known ones.
    public func field(named name: String) throws -> Field {
        if let field = fields.first(where: { $0.name == name }) { return field }
        let matches = fields.filter { Collation.caseInsensitive.areEquivalent($0.name, name) }
        if matches.count == 1 { return matches[0] }
        throw SortSpecError.unknownColumn(name, known: fields.map(\.name))
    }

    private func field(for keyPath: AnyKeyPath) throws -> Field {
        let box = _KeyPathBox(keyPath)
        guard let field = fields.first(where: { $0.keyPaths.contains(box) }) else {
            throw SortSpecError.unknownKeyPath(keyPath, known: fields.map(\.name))
        }
        return field
    }
}

// MARK: - Spec → keys

extension SortFields {
    /// The SortKit keys `spec` describes for these rows, with every modifier kept: collation,
    /// null placement, `enum=` orders (matched against the property's text — an enum's case
    /// name) and `num`/`date` readings of text. Each key is named (see ``SortKey/named(_:)``)
    /// after its field — with its `num`, `date` or `enum=` modifier, if any — so a SwiftUI
    /// `Table` column that builds the same key finds it, and `spec(from:)` turns the keys back
    /// into the spec.
    ///
    ///     try books.sorted(using: fields.sortKeys(for: SortSpec(parsing: "-price,title")))
    ///
    /// - Throws: ``SortSpecError`` for a field that isn't there.
    public func sortKeys(for spec: SortSpec) throws -> [SortKey<Row>] {
        try spec.keys.flatMap { specKey in
            let field = try field(named: specKey.column)
            let (value, text) = (field.value, field.text)
            let reading: @Sendable (Row) -> SortValue
            if field.isText && (specKey.interpretation == .number || specKey.interpretation == .date) {
                // The transform and `empty=null` are applied once, by `sortKeys(reading:)`.
                let reader = SortSpec.Key(specKey.column, .ascending, [.interpretation(specKey.interpretation)])
                reading = { row in
                    guard case .string(let text) = value(row) else { return value(row) }
                    return reader.sortValue(of: text, columnType: .string)
                }
            } else {
                reading = value
            }
            let name = field.keyName(specKey)
            return specKey.sortKeys(reading: reading, enumText: { text($0).map(SortValue.string) ?? .null }).map { $0.named(name) }
        }
    }

    /// The spec that SortKit keys sort by: keys made by ``sortKeys(for:)``, or key-path keys
    /// over these fields (`SortKey(\.price, .descending)`) — after a SwiftUI `Table` flipped or
    /// reordered them, say, so the table's order can be saved as text. A field named again
    /// later in the list is dropped: a `Table` puts the clicked column's key first and leaves
    /// the old one behind.
    ///
    ///     var keys = try fields.sortKeys(for: SortSpec(parsing: "title"))
    ///     keys[0].order = .reverse                       // a header click
    ///     try fields.spec(from: keys).description        // "-title"
    ///
    /// - Throws: ``SortSpecError`` for a key that is none of the fields' (a closure key without
    ///   a field's name).
    public func spec(from keys: [SortKey<Row>]) throws -> SortSpec {
        var specKeys: [SortSpec.Key] = []
        var index = keys.startIndex
        while index < keys.endIndex {
            let key = keys[index]
            index += 1
            var specKey: SortSpec.Key
            let field: Field
            var collation = key.collation
            switch key._identity {
            case .name(let name):
                guard let parsed = try? SortSpec(parsing: name), parsed.keys.count == 1,
                    let named = try? self.field(named: parsed.keys[0].column)
                else { throw SortSpecError.unknownColumn(name, known: fields.map(\.name)) }
                field = named
                specKey = parsed.keys[0]
                specKey.column = field.name
                specKey.direction = key.direction
                if specKey.enumOrder != nil, index < keys.endIndex, keys[index].name == name {
                    // The value key after an `enum=` rank belongs to the same spec key and
                    // carries its collation.
                    collation = keys[index].collation
                    index += 1
                }
            case .keyPath(let box, _):
                field = try self.field(for: box.keyPath)
                specKey = SortSpec.Key(field.name, key.direction)
            case .unique:
                throw SortSpecError.unknownColumn("(an unnamed closure key)", known: fields.map(\.name))
            }
            // A collation matters for text, and for matching an `enum=` order's names.
            if (field.isText || specKey.enumOrder != nil) && collation != .default { specKey.modifiers.append(.collation(collation)) }
            if key.nulls != .last { specKey.modifiers.append(.nulls(key.nulls)) }
            // A key that reads its field as an earlier one does can't decide anything.
            guard !specKeys.contains(where: { $0.reading == specKey.reading }) else { continue }
            specKeys.append(specKey)
        }
        return SortSpec(specKeys)
    }
}

extension SortFields.Field {
    /// The name of the keys a spec key gives: the field's name, with the modifiers a
    /// ``SortKey`` doesn't carry itself (`num`, `date`, `enum=`, `abs`, `len`, `random=`,
    /// `empty=null`).
    fileprivate func keyName(_ key: SortSpec.Key) -> String {
        let kept = key.modifiers.filter {
            switch $0 {
            case .interpretation(.number), .interpretation(.date), .enumOrder, .transform, .emptyIsNull: true
            default: false
            }
        }
        return SortSpec.Key(name, .ascending, kept).description
    }
}

// MARK: - Spec ↔ Foundation

extension SortFields {
    /// Foundation `KeyPathComparator`s for `spec` — for SwiftUI's `Table(_:sortOrder:)` over
    /// `[KeyPathComparator<Row>]` — with what they can't express in
    /// ``SortConversion/losses``.
    ///
    ///     let converted = try fields.keyPathComparators(for: SortSpec(parsing: "-price"))
    ///     rows.sorted(using: converted.value)
    ///
    /// Text compares with `String.StandardComparator.lexical`; an enum declared-order field
    /// sorts by its stored rank.
    ///
    /// - Throws: ``SortSpecError`` for a field that isn't there.
    public func keyPathComparators(for spec: SortSpec) throws -> SortConversion<[KeyPathComparator<Row>]> {
        try converted(spec) { field, order, string in field.comparator(order, string) }
    }

    /// Foundation `SortDescriptor`s for `spec` — for SwiftData's `@Query(sort:)` and
    /// `FetchDescriptor(sortBy:)` — with what they can't express in
    /// ``SortConversion/losses``.
    ///
    ///     let converted = try fields.sortDescriptors(for: SortSpec(parsing: "status,-price"))
    ///     // SwiftData: FetchDescriptor<Book>(sortBy: converted.value)
    ///
    /// - Throws: ``SortSpecError`` for a field that isn't there.
    public func sortDescriptors(for spec: SortSpec) throws -> SortConversion<[SortDescriptor<Row>]> {
        try converted(spec) { field, order, string in field.descriptor(order, string) }
    }

    /// Each spec key as a Foundation value, with what the values can't express.
    private func converted<Value>(_ spec: SortSpec, _ make: (Field, SortOrder, String.StandardComparator) -> Value) throws -> SortConversion<[Value]> {
        var losses: [SortConversionLoss] = []
        let values = try spec.keys.map { key in
            let field = try field(named: key.column)
            losses += field.losses(key)
            // `locale=LANG:natural` in the current language is Foundation's localizedStandard.
            let standard = String.StandardComparator._localizedStandard
            let localized = field.isText && standard != nil && key.collation == LocaleCollation._currentStandard
            return make(field, key.direction.order, localized ? standard! : String.StandardComparator.lexical)
        }
        return SortConversion(value: values, losses: losses)
    }

    /// The spec that Foundation comparators sort by, so a `Table`'s `sortOrder` can be saved
    /// as text. Text compared lexically reads back as `binary`. On Apple platforms,
    /// `localizedStandard` (SwiftUI's default for text columns) reads back exactly as
    /// `locale=LANG:natural` in the current language, and `localized` as `locale=LANG`; the
    /// other way, such a key becomes `localizedStandard` with no loss. Any other text comparator
    /// reads back as the default collation, `natural`, and is reported in
    /// ``SortConversion/losses``.
    /// Optional fields get `nulls-natural`, where Foundation puts `nil`.
    ///
    ///     try fields.spec(from: [KeyPathComparator(\Book.price, order: .reverse)]).value.description
    ///     // "-price:nulls-natural"
    ///
    /// - Throws: ``SortSpecError`` for a key path that is none of the fields'.
    public func spec(from comparators: [KeyPathComparator<Row>]) throws -> SortConversion<SortSpec> {
        try spec(
            reading: comparators.map { comparator in
                (
                    comparator.keyPath, comparator.order,
                    { field -> String.StandardComparator? in
                        if comparator == field.comparator(comparator.order, String.StandardComparator.lexical) { return String.StandardComparator.lexical }
                        if let standard = String.StandardComparator._localizedStandard, comparator == field.comparator(comparator.order, standard) {
                            return standard
                        }
                        return nil
                    }
                )
            })
    }

    /// The spec that Foundation sort descriptors sort by: as `spec(from:)` for comparators,
    /// with a descriptor's `stringComparator` telling lexical text apart.
    ///
    /// - Throws: ``SortSpecError`` for a descriptor without a key path or whose key path is
    ///   none of the fields'.
    public func spec(from descriptors: [SortDescriptor<Row>]) throws -> SortConversion<SortSpec> {
        try spec(
            reading: descriptors.map { descriptor in
                guard let keyPath = descriptor.keyPath else {
                    throw SortSpecError.unknownColumn("(a sort descriptor without a key path)", known: fields.map(\.name))
                }
                return (keyPath, descriptor.order, { _ in descriptor.stringComparator })
            })
    }

    /// The spec that Foundation's (key path, order, whether text compares lexically) list
    /// sorts by; text compared otherwise reads as `natural` and is reported.
    private func spec(reading items: [(keyPath: AnyKeyPath, order: SortOrder, string: (Field) -> String.StandardComparator?)]) throws -> SortConversion<
        SortSpec
    > {
        var losses: [SortConversionLoss] = []
        let keys = try items.map { item in
            let field = try field(for: item.keyPath)
            var collation: Collation?
            if field.isText {
                let string = item.string(field)
                if string == String.StandardComparator.lexical {
                    collation = .binary
                } else if let string, string == String.StandardComparator._localizedStandard {
                    collation = LocaleCollation._currentStandard
                } else if let string, string == String.StandardComparator._localized {
                    collation = LocaleCollation._current(numeric: false)
                }
                if collation == nil { losses.append(SortConversionLoss(column: field.name, kind: .textComparator)) }
            }
            return field.specKey(SortDirection(item.order), collation: collation)
        }
        return SortConversion(value: SortSpec(keys), losses: losses)
    }
}

extension SortFields.Field {
    /// What a Foundation comparator for `key` can't express.
    fileprivate func losses(_ key: SortSpec.Key) -> [SortConversionLoss] {
        var losses: [SortConversionLoss] = []
        if let order = key.enumOrder { losses.append(SortConversionLoss(column: name, kind: .enumOrder(order))) }
        let localizedStandard = String.StandardComparator._localizedStandard != nil && key.collation == LocaleCollation._currentStandard
        if isText && key.collation != .binary && !localizedStandard { losses.append(SortConversionLoss(column: name, kind: .collation(key.collation))) }
        if isText && (key.interpretation == .number || key.interpretation == .date) {
            losses.append(SortConversionLoss(column: name, kind: .interpretation(key.interpretation)))
        }
        if let transform = key.transform { losses.append(SortConversionLoss(column: name, kind: .transform(transform))) }
        if key.emptyIsNull && isText { losses.append(SortConversionLoss(column: name, kind: .emptyIsNull)) }
        if isOptional && key.nulls != .natural { losses.append(SortConversionLoss(column: name, kind: .nulls(key.nulls))) }
        return losses
    }

    /// The spec key a Foundation comparator on this field means.
    fileprivate func specKey(_ direction: SortDirection, collation: Collation?) -> SortSpec.Key {
        var modifiers: [SortSpec.Modifier] = []
        if let collation { modifiers.append(.collation(collation)) }
        if isOptional { modifiers.append(.nulls(.natural)) }
        return SortSpec.Key(name, direction, modifiers)
    }
}

extension SortDirection {
    /// The direction of Foundation's `SortOrder`: `.forward` is ascending.
    ///
    ///     SortDirection(SortOrder.reverse)   // .descending
    public init(_ order: SortOrder) {
        self = order == .forward ? .ascending : .descending
    }

    /// This direction as Foundation's `SortOrder`.
    public var order: SortOrder { self == .ascending ? .forward : .reverse }
}

extension CaseIterable where Self: Equatable {
    /// The case's position among `allCases`: the rank to store beside an enum so that a
    /// database (SwiftData, SQL) sorts it in declared order rather than by raw value.
    ///
    ///     enum Status: String, CaseIterable { case todo, reading, done }
    ///     Status.reading.declaredOrderRank   // 1 (its raw value "reading" sorts last)
    public var declaredOrderRank: Int {
        Self.allCases.firstIndex(of: self).map { Self.allCases.distance(from: Self.allCases.startIndex, to: $0) } ?? 0
    }
}

extension String.StandardComparator {
    #if canImport(Darwin)
        /// Foundation's `localizedStandard` (Apple platforms; Linux's Foundation has none): what
        /// `locale=LANG:natural` in the current language maps to, exactly, and back.
        static var _localizedStandard: String.StandardComparator? { .localizedStandard }
        /// Foundation's `localized` (Apple platforms): `locale=LANG` in the current language.
        static var _localized: String.StandardComparator? { .localized }
    #else
        static var _localizedStandard: String.StandardComparator? { nil }
        static var _localized: String.StandardComparator? { nil }
    #endif
}
