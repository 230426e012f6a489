/// The query budget of the stores tests open: tests that check the budget set a small one;
/// the rest must not fail because CPU-heavy tests beside them slowed a page past the 5 s
/// default on a 2-core machine.
public let testQueryBudget: Duration = .seconds(120)
