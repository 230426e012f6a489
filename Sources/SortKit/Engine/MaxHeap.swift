/// Sift operations of a binary max-heap kept in an array, under `less`: what a bounded top-k
/// selection keeps (its largest member at the root, replaced when a smaller candidate comes).
/// Used by the engine's top-k and by table indexes' first pages.
///
/// Written by hand because swift-collections' `Heap` orders `Comparable` elements, and a
/// top-k's order is a comparator chosen at run time (sort keys, a collation, a direction):
/// wrapping each element with its comparator would cost a reference per element and a call
/// through it per comparison.
/// Public only so that its `@inlinable` members inline in SortKit's other modules (Swift
/// 6.3 ignores `@inlinable` on a `package` type's members); not API: `_` names stay internal.
public enum _MaxHeap {
    /// Restores the heap after an element was appended at the end.
    @inlinable
    package static func siftUp<Element>(_ heap: inout [Element], by less: (Element, Element) -> Bool) {
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(heap[parent], heap[child]) else { return }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    /// Restores the heap after its root was replaced.
    @inlinable
    package static func siftDown<Element>(_ heap: inout [Element], by less: (Element, Element) -> Bool) {
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var largest = left
            if left + 1 < heap.count, less(heap[left], heap[left + 1]) { largest = left + 1 }
            guard less(heap[parent], heap[largest]) else { return }
            heap.swapAt(parent, largest)
            parent = largest
        }
    }

    /// Offers `element` to a heap of the `limit` least elements seen so far: appended while
    /// there is room, else it replaces the greatest when it is less.
    @inlinable
    package static func keep<Element>(_ element: Element, in heap: inout [Element], limit: Int, by less: (Element, Element) -> Bool) {
        if heap.count < limit {
            heap.append(element)
            siftUp(&heap, by: less)
        } else if let greatest = heap.first, less(element, greatest) {
            heap[0] = element
            siftDown(&heap, by: less)
        }
    }
}
