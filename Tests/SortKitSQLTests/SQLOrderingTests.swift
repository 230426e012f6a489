import Foundation
import SortKit
import Testing

@testable import SortKitSQL

/// The SQL text each dialect gets, pinned (as GRDB's own tests pin theirs).
@Suite("SQL rendering of sort specs")
struct SQLOrderingTests {
    let schema = TableSchema(
        name: "books",
        columns: [
            .init("title", .string), .init("price", .float), .init("status", .string), .init("published", .date),
        ])

    func orderBy(_ spec: String, _ dialect: SQLDialect) throws -> String {
        try SQLOrdering(.spec(SortSpec(parsing: spec)), schema: schema, dialect: dialect).orderBy.render(dialect).sql
    }

    @Test("Numbers and dates read their typed column; nulls go where the policy says, explicitly")
    func typedColumns() throws {
        #expect(try orderBy("price", .sqlite) == #"coalesce("n1", X'') ASC, "t"."id" ASC"#)
        #expect(try orderBy("-price", .sqlite) == #""n1" DESC, "t"."id" ASC"#)
        #expect(try orderBy("price:nulls-first", .sqlite) == #""n1" ASC, "t"."id" ASC"#)
        #expect(try orderBy("-published:nulls-first", .sqlite) == #"coalesce("n3", X'') DESC, "t"."id" ASC"#)
        #expect(try orderBy("price:nulls-natural", .sqlite) == #""n1" ASC, "t"."id" ASC"#)
        // PostgreSQL reads typed values through their key column, nulls at an explicit end.
        #expect(try orderBy("price", .postgresql) == #"coalesce("k1_inferred_natural", '\xff'::bytea) ASC, "t"."id" ASC"#)
        #expect(try orderBy("-price", .postgresql) == #"coalesce("k1_inferred_natural", '\x'::bytea) DESC, "t"."id" ASC"#)
        #expect(try orderBy("-price:nulls-natural", .postgresql) == #"coalesce("k1_inferred_natural", '\x'::bytea) DESC, "t"."id" ASC"#)
        #expect(try orderBy("price:nulls-first", .postgresql) == #"coalesce("k1_inferred_natural", '\x'::bytea) ASC, "t"."id" ASC"#)
    }

    @Test("Binary strings order by code point; other collations by their stored key column")
    func strings() throws {
        #expect(try orderBy("title:binary", .sqlite) == #"coalesce("c0", X'') COLLATE BINARY ASC, "t"."id" ASC"#)
        #expect(try orderBy("title:binary", .postgresql) == #"coalesce("k0_text_binary", '\xff'::bytea) ASC, "t"."id" ASC"#)
        #expect(try orderBy("-title", .sqlite) == #""k0_text_natural" DESC, "t"."id" ASC"#)
        #expect(try orderBy("title:nocase", .sqlite) == #"coalesce("k0_text_nocase", X'FF') ASC, "t"."id" ASC"#)
        #expect(try orderBy("title:fold", .postgresql) == #"coalesce("k0_text_fold", '\xff'::bytea) ASC, "t"."id" ASC"#)
        // A modifier that reads a column another way reads a key column of that reading.
        #expect(try orderBy("title:num", .sqlite) == #"coalesce("k0_number_natural", X'FF') ASC, "t"."id" ASC"#)
        #expect(try orderBy("price:text:binary", .sqlite) == #"coalesce("k1_text_binary", X'FF') ASC, "t"."id" ASC"#)
        // Locale collations: one lower-case spelling, as PostgreSQL folds the unquoted name
        // `CREATE TABLE` wrote.
        #expect(try orderBy("title:locale=sv-SE", .postgresql) == #"coalesce("k0_text_loc_sv_se", '\xff'::bytea) ASC, "t"."id" ASC"#)
        #expect(try orderBy("-title:locale=de-AT:nocase", .postgresql) == #"coalesce("k0_text_loc_de_at_s2", '\x'::bytea) DESC, "t"."id" ASC"#)
    }

    @Test("Two collations that would share a key column are refused, naming both")
    func sharedKeyColumn() throws {
        let region = try SortSpec(parsing: "title:locale=en-KN"), natural = try SortSpec(parsing: "title:locale=en:natural")
        var clash = schema
        clash.presets = ["region": region, "natural": natural]
        #expect(KeyVariant(column: 0, interpretation: .text, collation: natural.keys[0].collation).columnName == "k0_text_loc_en_kn")
        #expect {
            try clash.requiredVariants(.postgresql)
        } throws: { error in
            "\(error)".contains("locale=en-KN") && "\(error)".contains("locale=en:natural") && "\(error)".contains("k0_text_loc_en_kn")
        }
        clash.presets = ["region": region]
        #expect(try clash.requiredVariants(.postgresql).map(\.columnName) == ["k0_text_loc_en_kn"])
    }

    @Test("An enum order is a CASE over key ranges, literal so an index can repeat it")
    func enumOrder() throws {
        let sql = try orderBy("status:enum=todo|done:nocase", .sqlite)
        #expect(
            sql
                == #"coalesce(CASE WHEN "k2_text_nocase" IS NULL THEN NULL WHEN "k2_text_nocase" >= X'307570657000' AND "k2_text_nocase" < X'307570657001' THEN 0 WHEN "k2_text_nocase" >= X'3065706F6600' AND "k2_text_nocase" < X'3065706F6601' THEN 1 ELSE 2 END, X'') ASC, coalesce("k2_text_nocase", X'FF') ASC, "t"."id" ASC"#
        )
        let postgres = try orderBy("status:enum=todo", .postgresql)
        #expect(postgres.hasPrefix(#"CASE WHEN "k2_text_natural" IS NULL THEN 2 WHEN "k2_text_natural" >= '\x307570657000'::bytea"#))
    }

    @Test("Unknown columns are errors naming the column; names never reach SQL")
    func unknownColumn() throws {
        #expect(throws: TableStoreError.unknownColumn("x\"; DROP TABLE t; --", table: "books", known: ["title", "price", "status", "published"])) {
            try orderBy("x\"; DROP TABLE t; --", .sqlite)
        }
        // Column names match case-insensitively when unambiguous, as in memory.
        #expect(try orderBy("PRICE", .sqlite) == #"coalesce("n1", X'') ASC, "t"."id" ASC"#)
    }

    @Test("Keyset predicates: mixed directions, nulls at either end, parameters for every value")
    func keyset() throws {
        let ordering = try SQLOrdering(.spec(SortSpec(parsing: "-price,title")), schema: schema, dialect: .sqlite)
        let after = try ordering.after([.double(9.5), .blob([0x30, 0x62]), .integer(7)]).render(.sqlite)
        #expect(
            after.sql
                == #"("n1" < ? OR "n1" IS NULL OR ("n1" = ? AND (coalesce("k0_text_natural", X'FF') > ? OR (coalesce("k0_text_natural", X'FF') = ? AND ("t"."id" > ?)))))"#
        )
        #expect(after.arguments == [.double(9.5), .double(9.5), .blob([0x30, 0x62]), .blob([0x30, 0x62]), .integer(7)])
        let fromNull = try ordering.after([.null, .blob([0x30]), .integer(3)]).render(.sqlite)
        #expect(fromNull.sql.hasPrefix(#"(("n1" IS NULL AND"#))
        let ascending = try SQLOrdering(.spec(SortSpec(parsing: "price")), schema: schema, dialect: .postgresql)
        let key = #"coalesce("k1_inferred_natural", '\xff'::bytea)"#
        #expect(
            try ascending.after([.blob([0x10]), .integer(2)]).render(.postgresql).sql
                == "\(key) >= $1 AND (\(key) > $2 OR (\(key) = $3 AND (\"t\".\"id\" > $4)))")
    }
}
