import Logging
import Testing

@testable import SortKitSQL

/// WAL positions as the replica routing reads and writes them (`X/Y`, two hexadecimal halves).
@Suite("Replica write positions")
struct ReplicaPositionTests {
    @Test("Positions parse to one number that orders them; odd text is no position")
    func positions() {
        #expect(_PostgresReplicas.number("0/0") == 0)
        #expect(_PostgresReplicas.number("0/1A2B") == 0x1A2B)
        #expect(_PostgresReplicas.number("1/0") == 1 << 32)
        #expect(_PostgresReplicas.number("FFFFFFFF/FFFFFFFF") == UInt64.max)
        // "0/FFFFFFFF" is before "1/0", though longer as text.
        #expect(_PostgresReplicas.number("0/FFFFFFFF")! < _PostgresReplicas.number("1/0")!)
        for odd in ["", "/", "1", "1/", "/1", "1/2/3", "g/1", "1/ 2", "100000000/0", "0/100000000", "-1/0", "0/+1", "٣/1"] {
            #expect(_PostgresReplicas.number(odd) == nil, "\(odd)")
        }
    }

    @Test("The floor is the latest position a write or read reached; a write with no position sends reads to the primary")
    func floor() throws {
        let replicas = try _PostgresReplicas(
            urls: ["postgres://ci@127.0.0.1:1/a", "postgres://ci@127.0.0.1:2/b"], maximumConnections: 1, startup: [], wait: .seconds(1),
            logger: .init(label: "test"))
        #expect(replicas.floorPosition == "0/0")
        replicas.reached("0/16B3748", byWrite: true)
        replicas.reached("0/1000", byWrite: false) // a read on a replica behind: the floor stays
        replicas.reached("not a position", byWrite: false)
        #expect(replicas.floorPosition == "0/16B3748")
        replicas.reached("2/A", byWrite: false)
        #expect(replicas.floorPosition == "2/A")
        // Reads take the replicas in turn, leaving out one that couldn't be reached.
        let turns = (0..<4).compactMap { _ in replicas.next() }
        #expect(Set(turns) == [0, 1] && turns.count == 4)
        replicas.unreachable(0)
        #expect((0..<4).map { _ in replicas.next() } == [1, 1, 1, 1])
        replicas.unreachable(1)
        #expect(replicas.next() == nil, "both left out: the primary")
        // A write whose position couldn't be read: the primary until a write's position is read.
        let other = try _PostgresReplicas(
            urls: ["postgres://ci@127.0.0.1:1/a"], maximumConnections: 1, startup: [], wait: .seconds(1), logger: .init(label: "test"))
        other.reached(nil, byWrite: true)
        #expect(other.next() == nil)
        other.reached("0/1", byWrite: true)
        #expect(other.next() == 0)
    }
}
