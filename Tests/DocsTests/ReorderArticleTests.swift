import Foundation
import OrderKeys
import Testing

@Suite("Article: Reordering a SwiftUI List")
struct ReorderArticleTests {
    @Test("The article's code blocks are the code compiled here")
    func articleMatchesCode() throws {
        try ArticleSnippets.check(article: "Sources/OrderKeys/Documentation.docc/ReorderingAList.md")
    }

    @Test("onMove's IndexSet and destination go straight to move(fromOffsets:toOffset:)")
    func onMove() throws {
        // snippet: playlist
        struct Playlist {
            private(set) var order = OrderedList<String>()

            init(_ songs: [String]) throws {
                for song in songs { try order.append(song) }
            }

            /// What `.onMove` calls: offsets and destination as the List saw them.
            mutating func move(fromOffsets offsets: IndexSet, toOffset destination: Int) throws -> [LabelWrite<String>] {
                try order.move(fromOffsets: offsets, toOffset: destination)
            }
        }

        var playlist = try Playlist(["Intro", "Verse", "Chorus", "Bridge", "Outro"])
        let writes = try playlist.move(fromOffsets: [1, 3], toOffset: 5) // Verse and Bridge to the end
        // playlist.order.ids == ["Intro", "Chorus", "Outro", "Verse", "Bridge"]
        // writes: the two rows whose labels to save (one UPDATE each)
        // end snippet
        #expect(playlist.order.ids == ["Intro", "Chorus", "Outro", "Verse", "Bridge"])
        #expect(Set(writes.map(\.id)) == ["Verse", "Bridge"])
        #expect(playlist.order.verify())
    }
}
