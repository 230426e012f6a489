import ArgumentParser

@main
struct SortKitBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sortkit-bench",
        abstract: "SortKit's benchmarks; each case prints its time and its ratio to anchors measured in the same run.",
        subcommands: [EngineBench.self, KeyBench.self, OrderBench.self, PresetBench.self, TableBench.self, SQLBench.self, LazyBench.self, DataCommand.self],
        defaultSubcommand: EngineBench.self)
}
