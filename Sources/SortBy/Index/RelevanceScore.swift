import Foundation
import SortKit

/// How well a row matches a query, for the `relevance` preset: each term scores by the first
/// field it occurs in (earlier fields weigh more: title before author) and by where — a whole
/// word beats a word start, which beats the middle of a word.
///
///     RelevanceScore.score(SearchQuery("dune"), folded: SearchQuery.foldedFields(["Dune", "Frank Herbert"]))
///     // 2 fields: weight 2 for the title × 4 for a whole word = 8
public enum RelevanceScore {
    /// The score of a row's folded fields (`SearchQuery.foldedFields(_:)`); 0 if a term is
    /// missing.
    public static func score(_ query: SearchQuery, folded: String) -> Int {
        let fields = folded.split(separator: "\u{1F}", omittingEmptySubsequences: false)
        var total = 0
        for term in query.terms {
            guard let (index, field) = fields.enumerated().first(where: { $0.element.contains(term) }) else { return 0 }
            let weight = fields.count - index
            let range = field.range(of: term)!
            let startsWord = range.lowerBound == field.startIndex || !field[field.index(before: range.lowerBound)].isLetter
            let endsWord = range.upperBound == field.endIndex || !field[range.upperBound].isLetter
            total += weight * (startsWord ? (endsWord ? 4 : 2) : 1)
        }
        return total
    }
}
