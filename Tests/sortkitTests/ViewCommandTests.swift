import Foundation
import SortKitTestSupport
import Testing

@Suite("sortkit view")
struct ViewCommandTests {
    func run(_ arguments: [String]) async throws -> CommandRunner.Result {
        let folder = try CommandRunner.folder(with: ["books.csv": booksCSV])
        return try await CommandRunner.run(arguments, stdin: "", in: folder)
    }

    @Test("A sorted, searched page with ▲/▼, priorities and the footer")
    func page() async throws {
        let result = try await run([
            "view", "books.csv", "--by", "status:enum=todo|reading|done", "--by", "-price:num",
            "--search", "o", "--page", "2", "--page-size", "2", "--max-width", "12",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                ┌──────────────┬──────────────┬───────────┬───────────┬─────────────┐
                │ title        │ author       │ status ▲1 │ price ▼2  │ published   │
                ├──────────────┼──────────────┼───────────┼───────────┼─────────────┤
                │ Volume 2     │ Anonymous    │ todo      │ $3        │             │
                │ The Left Ha… │ Ursula K. L… │ done      │ $9.99     │ 1969-03-01  │
                └──────────────┴──────────────┴───────────┴───────────┴─────────────┘
                rows 3–4 of 6 (7)

                """)
    }

    @Test("Errors: unknown column, bad strategy, missing file — one line on stderr, exit 2")
    func errors() async throws {
        let cases: [([String], String)] = [
            (["view", "books.csv", "--by", "colour"], "sortkit view: unknown column 'colour'"),
            (["view", "books.csv", "--widths", "wide"], "--widths: unknown strategy 'wide'"),
            (["view", "missing.csv"], "sortkit view: cannot read 'missing.csv'"),
            (["view", "books.csv", "--page", "0"], "--page must be 1 or more"),
            (["serve", "--postgres", "mysql://x"], "--postgres: the PostgreSQL URL must look like postgres://"),
            (["serve", "--read-replica", "postgres://app@db2/app"], "--read-replica reads from a standby of a PostgreSQL primary"),
            (["serve", "--postgres", "postgres://app@db1/app", "--read-replica", "mysql://x"], "--read-replica: the PostgreSQL URL must look like"),
            (["serve", "books.csv", "--preset", "Cheapest"], "--preset needs NAME=SPEC"),
            (["serve", "books.csv", "--preset", "Odd=price:sideways"], "--preset Odd: "),
            (["serve", "--preset", "Cheapest=price"], "--preset applies to imported CSV files"),
        ]
        for (arguments, message) in cases {
            let result = try await run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }
}
