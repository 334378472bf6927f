"""The package's vocabulary: one name per concept, one kind of value per name.

This is the single list of the names a user meets: the arguments of every public function and
method, the columns (and index names) of every result's tables and the keys of their ``attrs``.
Each name has one *kind* of value (:data:`KINDS`) and one meaning, wherever it appears.
``vignettes/vocabulary.qmd`` shows it (:func:`table`), ``tests/test_vocabulary.py`` checks the
public API against it (every argument and column is listed; every argument's annotation, default
and documentation fit its kind), and :data:`binaryeval._validate.RENAMED` is read from its
``replaces`` (an argument spelled an earlier way raises an error naming the new spelling).

A second meaning gets a second name: ``prior`` and ``rate_prior`` are Beta pairs of the binary
model, the latent model's Dirichlet concentrations are ``share_concentration`` and
``rate_concentration``; ``threshold`` is a score cut, the posterior probability a ranking needs is
``min_prob``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "NAMES", "RENAMED_IN", "Name", "by_name", "renamed", "table"]

#: The kinds of value a name takes, and what each means.
KINDS: dict[str, str] = {
    "axes": "a matplotlib Axes (None: a new figure)",
    "beta_pair": "the parameters (a, b) of a Beta prior",
    "choice": "one of a few words, listed where the name is documented",
    "column": "the name of a column of data",
    "columns": "names of columns of data",
    "concentration": "a Dirichlet concentration: a positive number, or an array of them",
    "correlation": "a correlation coefficient, in [-1, 1]",
    "count": "a number of ratings, items or pairs: a whole number >= 0 (a list of them for "
             "tables)",
    "counts": "counts of ratings: a table, matrix or mapping of whole numbers",
    "data": "a data frame",
    "flag": "True or False",
    "formula": "a model formula, e.g. \"human ~ metric | system\"",
    "label": "the name of a group, class, term or pair, as text",
    "labels": "names of groups, classes or terms, as text",
    "level": "the coverage of an interval, strictly between 0 and 1",
    "mapping": "a mapping (dict) of names to values",
    "method": "how a result is computed: a word as an argument; a word or a description in a "
              "result",
    "n_jobs": "joblib's n_jobs: None, -1 (all cores) or a positive whole number",
    "number": "a real number",
    "object": "an object of the package (a posterior, a configuration, a callable)",
    "order": "an order of groups: a word (\"estimate\", \"input\") or a list of names",
    "pairs": "pairs of groups: a word (\"all\", \"neighbours\") or a list of (group_1, group_2)",
    "path": "a file or folder path",
    "probability": "a probability, rate or share, in [0, 1]",
    "rates": "how the metric's rates enter: \"estimate\", \"pooled\", \"hierarchical\" or "
             "the known values "
             "({\"rho\": .., \"eta\": ..}; matrices in the latent model)",
    "score_cut": "a cut on a scalar score: a number, a rule (\"balanced\", \"youden\") or one "
                 "per group",
    "seed": "a seed: None, a whole number >= 0, a SeedSequence or a Generator",
    "side": "one side of the comparison, the human or the metric ratings: as an argument their "
            "values (or the column holding them); in a result, which one (its name or label)",
    "spread": "a standard deviation or standard error, >= 0",
    "terms": "terms of the formula, by name: one or a list",
    "text": "free text",
    "tolerance": "differences treated as ties: a number, a (human, metric) pair or one per term",
    "values": "numbers to evaluate at (an array)",
    "whole": "a size or number of repetitions: a whole number >= 1 (or several)",
}


@dataclass(frozen=True)
class Name:
    """One name of the vocabulary.

    Parameters
    ----------
    name : str
        The name.
    kind : str
        The kind of value (a key of :data:`KINDS`).
    meaning : str
        What it means, in a few words.
    where : str
        Space-separated: ``argument``, ``column`` (result tables and their index names),
        ``attrs`` (keys of a table's ``attrs``) and/or ``option`` (an option of the command line
        only; every argument is also its command's option, ``--sig-level`` for ``sig_level``).
    replaces : tuple of str
        Earlier spellings; as arguments they raise an error naming this one.
    doc : str, optional
        A regular expression an argument's documented type and description must match (how
        the test tells a second meaning that hides behind a plausible annotation).

    Examples
    --------
    >>> from binaryeval._vocabulary import by_name
    >>> by_name()["min_prob"].kind
    'probability'
    """

    name: str
    kind: str
    meaning: str
    where: str = "argument"
    replaces: tuple[str, ...] = ()
    doc: str | None = None

    @property
    def roles(self) -> frozenset[str]:
        """Where the name appears: a subset of {"argument", "column", "attrs", "option"}."""
        return frozenset(self.where.split())


_ARG, _COL, _ATTRS = "argument", "column", "attrs"

#: Every name, with its kind and meaning.
NAMES: tuple[Name, ...] = (
    # -- the model and its rates ----------------------------------------------------------------
    Name("alpha", "probability", "the model's rate of adequate (positive) outputs", "argument attrs",
         doc=r"adequate"),
    Name("rho", "probability", "the metric's true-positive rate", "argument column attrs"),
    Name("eta", "probability", "the metric's true-negative rate", "argument column attrs"),
    Name("psi", "probability", "share of positives in the paired set", "argument column attrs"),
    Name("rates", "rates", "how the metric's rates enter", "argument attrs",
         doc=r"estimate"),
    Name("prior", "beta_pair", "Beta prior (a, b) of the share of adequate outputs alpha",
         "argument attrs", doc=r"Beta"),
    Name("rate_prior", "beta_pair", "Beta prior (a, b) of each of the rates rho and eta",
         "argument attrs", doc=r"Beta"),
    Name("share_concentration", "concentration",
         "Dirichlet prior of the class shares in the latent-truth model", replaces=(),
         doc=r"Dirichlet"),
    Name("rate_concentration", "concentration",
         "Dirichlet prior of each row of the latent model's confusion matrix", doc=r"Dirichlet"),
    Name("cell_concentration", "concentration",
         "Dirichlet concentration added to every cell of a preference confusion matrix",
         "argument attrs", doc=r"Dirichlet"),
    Name("dependence", "choice", "how several metrics combine: \"joint\" or \"independent\"",
         "argument attrs"),
    Name("paired_informs_alpha", "flag", "whether the paired rows' human ratings count for alpha"),
    Name("rate_intervals", "flag", "whether the table holds the metric's rates' intervals, "
         "not only their means", "argument attrs"),
    Name("paired_informs_pi", "flag", "whether the paired items' human ratings count for the "
         "class shares"),
    Name("bins", "whole", "bins of a scalar metric (one number or one per term), or of a numeric "
         "by= covariate", "argument attrs"),
    Name("levels", "whole", "levels of each metric whose joint patterns are the outputs"),
    Name("threshold", "score_cut", "where a scalar score becomes a binary rating "
         "(positive when score >= threshold)", "argument column", doc=r"score"),
    Name("lower_is_better", "terms", "the terms whose lower scores are better",
         "argument attrs", replaces=("higher_is_better", "human_higher_is_better",
                                     "metric_higher_is_better"), doc=r"(?i)lower"),
    Name("tolerance", "tolerance", "score differences counted as ties"),
    # -- data and formula -------------------------------------------------------------------------
    Name("formula", "formula", "the model formula", "argument attrs"),
    Name("data", "data", "the data, one row per rating (or per compared pair)"),
    Name("eval_env", "object", "where formula variables are looked up (patsy's eval_env)"),
    Name("item", "column", "the column naming the input (segment, document) the systems share"),
    Name("first", "column", "the column naming the first system of each compared pair"),
    Name("second", "column", "the column naming the second system of each compared pair"),
    Name("shown_first", "column", "the column naming the system whose output was shown first"),
    Name("by", "column", "a covariate column whose levels (strata) are compared"),
    Name("system", "column", "the column naming the system"),
    Name("rater", "column", "the column naming the rater; in tables the rater's name",
         "argument column attrs"),
    # -- the rater-noise model (binaryeval.raters) ------------------------------------------------
    Name("raters", "choice", "the human raters' error model: \"dawid-skene\" or \"mace\""),
    Name("error_free", "labels", "raters read without error (their ratings are the truth)"),
    Name("rater_prior", "beta_pair", "Beta prior (a, b) of each rater's chance of giving the "
         "item's class", doc=r"Beta"),
    Name("rater_rates", "choice", "how the raters' confusions (competences) enter: "
         "\"estimate\" (each rater's own, fixed prior) or \"hierarchical\" (drawn from a "
         "population with learnt mean and concentration)", "argument attrs"),
    Name("population", "text", "the raters' population of rater_rates='hierarchical': its mean "
         "and concentration with intervals (the table: RaterFit.population())", "attrs"),
    Name("model", "choice", "the raters' error model of a fit", "attrs"),
    Name("rating", "label", "a human rating's value (index of a rater's confusion table)",
         "column"),
    Name("n_ratings", "count", "human ratings (of a group, or of an item)", "column"),
    Name("n_items", "count", "items a rater rated", "column"),
    Name("n_shared", "count", "items a rater rated that somebody else rated too", "column"),
    Name("is_error_free", "flag", "whether the rater is read without error", "column"),
    Name("spam_positive", "probability", "share of adequate answers among a rater's guesses "
         "(MACE)", "column"),
    Name("competence", "probability", "a rater's chance of giving the item's class rather than "
         "a guess (MACE)", "column"),
    Name("p_correct_0", "probability", "a rater's chance of rating an inadequate item 0",
         "column"),
    Name("p_correct_1", "probability", "a rater's chance of rating an adequate item 1",
         "column"),
    Name("majority", "probability", "share of an item's human ratings saying adequate",
         "column"),
    Name("prob_adequate", "probability", "posterior probability that the item is adequate",
         "column"),
    Name("metrics", "columns", "the columns of the metrics' scores"),
    Name("human", "side", "the human ratings (values or column); in results, the human term",
         "argument column attrs"),
    Name("metric", "side", "the metric ratings (values or column); in results, the metric",
         "argument column"),
    Name("score", "side", "the scalar metric scores"),
    Name("scores_1", "side", "scores of group_1, aligned by item"),
    Name("scores_2", "side", "scores of group_2, aligned by item"),
    Name("paired", "counts", "paired counts: human class by metric output"),
    Name("counts", "counts", "counts of ratings (per group)"),
    Name("confusion", "counts", "a 3 x 3 preference confusion matrix of counts"),
    # -- counts of the binary model (the keywords of alpha_posterior) ----------------------------
    Name("human_pos", "count", "positive human ratings outside the paired table"),
    Name("human_total", "count", "human ratings outside the paired table (in a plan: every "
         "human rating, n_human)"),
    Name("metric_pos", "count", "positive metric ratings of items without a human rating",
         "argument column"),
    Name("metric_total", "count", "metric ratings of items without a human rating"),
    Name("tp", "count", "paired items: human positive, metric positive", "argument column"),
    Name("fn", "count", "paired items: human positive, metric negative", "argument column"),
    Name("tn", "count", "paired items: human negative, metric negative", "argument column"),
    Name("fp", "count", "paired items: human negative, metric positive", "argument column"),
    # -- sizes of a design -------------------------------------------------------------------------
    Name("n_human", "count", "human ratings that inform alpha (paired ones included)",
         "argument column"),
    Name("n_metric", "count", "metric ratings of items without a human rating",
         "argument column attrs"),
    Name("n_paired", "count", "items rated by both", "argument column attrs"),
    Name("n_metric_all", "count", "metric ratings, paired ones included (the naive estimate's "
         "sample)", "column"),
    Name("metric_pos_all", "count", "positive metric ratings, paired ones included", "column"),
    Name("n", "count", "the sample size a statistic is computed from", "argument column"),
    Name("n_pos", "count", "ratings preferring the first system", "argument column"),
    Name("n_neg", "count", "ratings preferring the second system", "argument column"),
    Name("n_ties", "count", "tied ratings", "argument column"),
    Name("n_systems", "whole", "systems in each simulated sample"),
    # -- row accounting ----------------------------------------------------------------------------
    Name("n_rows", "count", "rows in the data", "attrs"),
    Name("n_used", "count", "rows used", "attrs"),
    Name("n_excluded", "count", "rows left out", "attrs"),
    Name("n_draws", "count", "posterior draws behind a table's probabilities (all chains): "
         "they are shown no finer than 1 / n_draws", "attrs"),
    Name("excluded", "mapping", "rows left out, by reason", "attrs"),
    Name("systems_left_out", "labels", "systems all of whose rows were left out", "attrs"),
    Name("n_skipped", "count", "items rated for only one system of a pair", "column"),
    # -- intervals, tests and their settings -------------------------------------------------------
    Name("level", "level", "the coverage of an interval", "argument attrs column",
         replaces=("confidence", "confidence_level", "conf_level"),
         doc=r"(?i)coverage|probability content|credib|confidence|level"),
    Name("kind", "choice", "which kind: of interval (\"eti\", \"hdi\") or of plot",
         "argument attrs"),
    Name("sig_level", "probability", "the significance threshold of a test", "argument attrs",
         replaces=("gamma",), doc=r"(?i)significance"),
    Name("min_prob", "probability", "the posterior probability a win needs in a ranking",
         doc=r"(?i)probability"),
    Name("adjust", "choice", "a multiple-testing adjustment (a statsmodels multipletests method)",
         "argument attrs", replaces=("p_adjust",)),
    Name("alternative", "choice", "the alternative hypothesis", "argument column attrs"),
    Name("ties", "choice", "how ties enter a sign test (\"drop\", \"split\")", "argument column"),
    Name("sign_test_ties", "choice", "how ties enter favi's sign tests (\"drop\", \"split\")"),
    Name("exact", "flag", "exact test rather than its normal approximation"),
    Name("method", "method", "how a result is computed", "argument column attrs"),
    Name("ci_method", "choice", "the bootstrap interval's method"),
    Name("n_resamples", "whole", "resamples, permutations or simulated experiments",
         "argument column attrs", replaces=("draws", "reps", "n_boot", "n_permutations")),
    Name("draws", "whole", "sampler draws kept per chain (beside chains)"),
    Name("chains", "whole", "sampler chains"),
    Name("warmup", "whole", "sampler warm-up iterations"),
    Name("seed", "seed", "the randomness", "argument attrs", replaces=("random_state", "rng")),
    Name("n_jobs", "n_jobs", "parallel work (joblib)"),
    Name("progress", "flag", "show a progress bar"),
    Name("order", "order", "the order of the groups", "argument attrs"),
    Name("pairs", "pairs", "which pairs of groups"),
    Name("group", "label", "one group (system), by name; in tables the per-group index",
         "argument column"),
    Name("groups", "labels", "groups (systems), by name"),
    Name("group_1", "label", "the first group of a pair (natural order for rated pairs, the fit's order for compare() and plan() of a fit; see binaryeval._pairs)",
         "argument column", replaces=("system_1",)),
    Name("group_2", "label", "the second group of a pair", "argument column",
         replaces=("system_2",)),
    Name("pair", "label", "a pair, \"group_1 vs group_2\" (summary tables)", "column"),
    Name("classes", "labels", "names of the human classes"),
    Name("class", "label", "a human class of the latent model", "column"),
    Name("concentration", "concentration", "the learnt concentration c_k of the population "
         "Dirichlet of a row of the confusion matrices (rates='hierarchical'; posterior median)",
         "column"),
    Name("concentration_lower", "concentration", "lower end of the interval of "
         "concentration", "column"),
    Name("concentration_upper", "concentration", "upper end of the interval of "
         "concentration", "column"),
    Name("metric_output", "label", "a metric output (a joint pattern of several metrics) of the "
         "latent model", "column"),
    Name("outputs", "labels", "names of the metric outputs"),
    Name("term", "label", "a metric term of the formula", "argument attrs"),
    Name("source", "choice", "whose ratings decide (\"human\", \"metric\")"),
    Name("value", "choice", "which column a matrix shows"),
    Name("rule", "choice", "how a threshold is chosen (\"balanced\", \"youden\")"),
    Name("pooled", "flag", "also compute the curve of all groups pooled"),
    Name("absolute", "flag", "correlations in absolute value"),
    Name("aggregate", "choice", "how segment scores become system scores", "argument attrs"),
    Name("unpaired", "choice", "what to do with items rated for one system of a pair"),
    # -- planning ----------------------------------------------------------------------------------
    Name("epsilon", "number", "the difference in alpha to detect", "argument column"),
    Name("simulate", "choice", "expected counts or simulated draws", "argument attrs"),
    Name("rounding", "choice", "rounding of expected counts", "argument attrs"),
    Name("vary", "choice", "which number of ratings a sample-size search varies",
         "argument column"),
    Name("max_size", "whole", "the largest size a search tries"),
    Name("max_human", "whole", "the largest number of additional human ratings tried",
         "argument attrs"),
    Name("separated_now", "number", "the smallest difference the ratings at hand separate",
         "column"),
    Name("more_human", "count", "additional human ratings per system that would separate the "
         "pair (missing when none up to max_human would)", "column"),
    Name("n_human_1", "count", "human ratings of group_1 now", "column"),
    Name("n_human_2", "count", "human ratings of group_2 now", "column"),
    Name("n_human_needed", "count", "human ratings a pair (or group) would need", "column"),
    Name("n_human_needed_1", "count", "human ratings group_1 would need", "column"),
    Name("n_human_needed_2", "count", "human ratings group_2 would need", "column"),
    Name("n_metric_1", "count", "metric-only ratings of group_1", "column"),
    Name("n_metric_2", "count", "metric-only ratings of group_2", "column"),
    Name("budget", "number", "the rating budget", "argument attrs"),
    Name("cost_human", "number", "the cost of one human rating", "argument attrs"),
    Name("cost_metric", "number", "the cost of one metric rating", "argument attrs"),
    Name("n_points", "whole", "splits of the budget evaluated"),
    Name("grid", "whole", "grid sizes (N_alpha, N_rho, N_eta) of the midpoint grid",
         "argument attrs"),
    # -- correlation ---------------------------------------------------------------------------------
    Name("r", "correlation", "a correlation coefficient"),
    Name("r12", "correlation", "r(human, metric 1)", "argument column"),
    Name("r13", "correlation", "r(human, metric 2)", "argument column"),
    Name("r23", "correlation", "r(metric 1, metric 2)", "argument column"),
    Name("chunk_size", "whole", "systems drawn per batch"),
    # -- the validation tools ------------------------------------------------------------------------
    Name("region", "probability", "probability of an acceptance region under exact coverage"),
    Name("lam", "number", "the PPI weight of the metric's ratings (None: PPI++'s tuned weight)"),
    # -- posteriors (scipy's frozen-distribution names) ----------------------------------------------
    Name("x", "values", "points to evaluate at (scipy); the x-axis column of a plot"),
    Name("q", "values", "probabilities of quantiles (scipy)"),
    Name("size", "whole", "number of draws (scipy's rvs); the size a search found",
         "argument column"),
    Name("random_state", "seed", "randomness of scipy's rvs (scipy's name)"),
    Name("other", "object", "another posterior"),
    Name("parts", "object", "posterior components"),
    Name("weights", "values", "weights of the components"),
    Name("smooth", "object", "a smooth mixture"),
    # -- display, files and the site -----------------------------------------------------------------
    Name("ax", "axes", "where to draw"),
    Name("annot", "flag", "write the values in the cells"),
    Name("mark", "choice", "which threshold rule the ROC plot marks"),
    Name("title", "text", "a title"),
    Name("note", "text", "a note (a summary's; a row's remark in a table)", "argument column"),
    Name("frame", "data", "a table to add"),
    Name("name", "text", "a name (of a dataset, a report, a setting)"),
    Name("query", "text", "a pandas query selecting rows"),
    Name("argument_names", "labels", "how the caller names its arguments in error messages"),
    Name("string_columns", "columns", "columns of names read from a text file as written"),
    Name("command", "text", "the command line that made a report"),
    Name("text", "text", "text of a document"),
    Name("path", "path", "a file path"),
    Name("paths", "path", "files or folders"),
    Name("start", "path", "where a search starts"),
    Name("output", "path", "the file written"),
    Name("output_dir", "path", "the folder written", replaces=("out_dir",)),
    Name("plan", "flag", "write the fit's plan() (more human ratings per pair) instead of the fit",
         "option"),
    Name("overwrite", "flag", "replace an existing output file (an input is never replaced)",
         replaces=("force",)),
    Name("site", "object", "the site to build into (a flag or a folder)"),
    Name("docs", "path", "documents to render"),
    Name("config", "object", "a site configuration"),
    Name("index", "flag", "render the landing page"),
    Name("engine", "choice", "how documents are rendered"),
    Name("kernel_name", "text", "the Jupyter kernel"),
    Name("timeout", "whole", "seconds allowed per document"),
    Name("notice", "object", "receives messages about pages left out"),
    # -- options of the command line only (binaryeval COMMAND --option) ----------------------------
    Name("what", "choice", "what binaryeval plan computes (difference, table, size)", "option"),
    Name("compare", "flag", "binaryeval fit: also print the pairwise comparison", "option"),
    Name("compare_method", "choice", "binaryeval fit: the comparison's method (compare(method=))",
         "option"),
    Name("pairwise", "flag", "binaryeval correlate: also print the pairwise tests", "option"),
    Name("format", "choice", "the output format (text, csv, json, html...)", "option"),
    Name("dask", "flag", "read or run with Dask (a local cluster on the command line)",
         "argument option"),
    Name("scheduler", "text", "the address of a Dask scheduler", "option"),
    Name("excluded_rows", "path", "binaryeval fit: the CSV file to write the rows left out to "
         "(the fit's excluded_rows: each row's number and reason)", "option"),
    Name("names", "labels", "binaryeval datasets: which datasets to export", "option"),
    Name("power", "probability", "the chance a plan gives of telling two systems eps apart "
         "(0.5: the papers' detectable difference)", "argument column attrs"),
    Name("variance", "choice", "a plan's posterior variance of the other system: \"equal\" (the "
         "papers': this one's) or \"both\" (its own)", "argument attrs"),
    Name("sizes", "text", "what a plan's sizes count (per system: each of the two systems "
         "compared gets them)", "attrs"),
    Name("every_row", "flag", "every row of a shipped dataset's file, not its loader's default "
         "selection", "argument"),
    Name("stdout", "flag", "binaryeval datasets: print one dataset's CSV", "option"),
    Name("no_index", "flag", "binaryeval render: do not write the landing page", "option"),
    # -- datasets ------------------------------------------------------------------------------------
    Name("lp", "text", "a language pair"),
    Name("testset", "text", "a WMT test set"),
    Name("annotators", "text", "which annotators"),
    Name("annotated_only", "flag", "keep annotated rows only"),
    # -- result columns ------------------------------------------------------------------------------
    Name("estimate", "number", "the point estimate (posterior mean); as an argument, estimates "
         "to rank", "argument column"),
    Name("covariance", "values", "the covariance matrix of estimates"),
    Name("std_error", "spread", "the standard error (posterior sd) of the estimate", "column"),
    Name("lower", "number", "the lower bound of an interval", "column"),
    Name("upper", "number", "the upper bound of an interval", "column"),
    Name("statistic", "number", "a test statistic", "column"),
    Name("p_value", "probability", "a p-value", "column"),
    Name("p_adjusted", "probability", "a p-value adjusted for multiple testing", "column"),
    Name("significant", "flag", "whether a test rejects at sig_level", "column"),
    Name("stars", "text", "significance stars", "column"),
    Name("df", "number", "degrees of freedom", "column"),
    Name("n_eff", "number", "human ratings worth the same as the fit", "column"),
    Name("prior_dominated", "flag", "the posterior is essentially the prior: sd at least 0.75 of "
         "the prior's (the data say little)", "column"),
    Name("include_prior_dominated", "flag", "keep groups or pairs whose posterior is essentially "
         "the prior"),
    Name("mode", "number", "the posterior mode", "column"),
    Name("median", "number", "the posterior or sample median", "column"),
    Name("mean", "number", "a sample mean", "column"),
    Name("sd", "spread", "a sample standard deviation of values (not an estimate's error)",
         "column"),
    Name("min", "number", "a sample minimum", "column"),
    Name("max", "number", "a sample maximum", "column"),
    Name("naive", "probability", "the metric-only estimate of alpha, uncorrected", "column"),
    Name("naive_diff", "number", "the metric-only difference of preference shares, uncorrected",
         "column"),
    Name("naive_basis", "text", "which ratings the naive column uses", "attrs"),
    Name("metric_worth", "number", "human ratings one metric rating is worth", "column"),
    Name("estimand", "text", "what the estimate column estimates (alpha, or the mean rating of "
         "binned ratings)", "attrs"),
    Name("gain_rated", "number", "expected reduction of alpha's posterior variance from one more "
         "rating of an already rated item", "column"),
    Name("gain_new", "number", "expected reduction of alpha's posterior variance from one new "
         "item", "column"),
    Name("gain_error_free", "number", "expected reduction of alpha's posterior variance from one "
         "new item rated without error", "column"),
    Name("gain_rated_mc_error", "spread", "Monte-Carlo error of gain_rated", "column"),
    Name("gain_new_mc_error", "spread", "Monte-Carlo error of gain_new", "column"),
    Name("gain_error_free_mc_error", "spread", "Monte-Carlo error of gain_error_free", "column"),
    Name("diff_mc_error", "spread", "Monte-Carlo error of gain_rated - gain_new", "column"),
    Name("std_error_rated", "spread", "expected posterior sd of alpha after one more rating of a "
         "rated item", "column"),
    Name("std_error_new", "spread", "expected posterior sd of alpha after one new item",
         "column"),
    Name("worth", "number", "gain_rated / gain_new: new items one more rating of a rated item "
         "is worth", "column"),
    Name("better", "text", "which buys more certainty: 'rated item', 'new item' or 'either'",
         "column"),
    Name("ratings_per_error_free", "number", "gain_error_free / gain_new: new items rated once "
         "that one error-free rating is worth", "column"),
    Name("new_item", "text", "what a new item of the plan is (with or without a metric rating)",
         "column"),
    Name("mc_margin", "number", "Monte-Carlo errors two gains must differ by to call one better",
         "attrs"),
    Name("rho_lower", "probability", "lower bound of rho's interval", "column"),
    Name("rho_upper", "probability", "upper bound of rho's interval", "column"),
    Name("rho_std_error", "spread", "posterior sd of rho", "column", replaces=("rho_std",)),
    Name("eta_lower", "probability", "lower bound of eta's interval", "column"),
    Name("eta_upper", "probability", "upper bound of eta's interval", "column"),
    Name("eta_std_error", "spread", "posterior sd of eta", "column", replaces=("eta_std",)),
    Name("p_unidentified", "probability", "posterior probability that rho + eta <= 1", "column"),
    Name("diff", "number", "the estimated difference group_1 - group_2", "column"),
    Name("prob_greater", "probability", "P(group_1 > group_2), from the posterior", "column",
         replaces=("prob_1_better",)),
    Name("win_1", "probability", "share of items where group_1 is preferred", "column"),
    Name("tie", "probability", "share of ties", "column"),
    Name("win_2", "probability", "share of items where group_2 is preferred", "column"),
    Name("favi", "number", "the Favi-Score (in [-2, 2])", "column attrs"),
    Name("favi_lower", "number", "lower bound of the Favi-Score's interval", "column"),
    Name("favi_upper", "number", "upper bound of the Favi-Score's interval", "column"),
    Name("pooled_favi", "number", "Favi of a system's summed confusion matrices", "column"),
    Name("n_pairs", "count", "pairs with a defined score", "column"),
    Name("n_disagreements", "count", "off-diagonal cells of a confusion matrix (E)",
         "column attrs"),
    Name("mar_human", "number", "human preferences for group_1 minus those for group_2",
         "column"),
    Name("mar_metric", "number", "metric preferences for group_1 minus those for group_2",
         "column"),
    Name("sample_accuracy", "probability", "share of items where human and metric agree",
         "column"),
    Name("sign_agreement", "flag", "whether human and metric prefer the same system of a pair",
         "column"),
    Name("p_value_human", "probability", "sign-test p-value of the human preferences", "column"),
    Name("p_value_metric", "probability", "sign-test p-value of the metric preferences",
         "column"),
    Name("p_undefined", "probability", "share of draws where the Favi-Score is undefined",
         "column"),
    Name("count", "count", "a cell count", "column"),
    Name("weight", "number", "the Favi weight of a cell", "column"),
    Name("total", "count", "a row total", "column"),
    Name("rhat", "number", "R-hat of the sampler", "column"),
    Name("rank", "count", "a system's rank (1 = the best), in a rank table's column or axis",
         "column"),
    Name("p_best", "probability", "posterior probability that a system ranks first", "column"),
    Name("naive_score", "number", "the ranked score from the metric or judge alone, uncorrected",
         "column"),
    Name("naive_rank", "count", "the rank of the uncorrected score (1 = the best)", "column"),
    Name("ranked", "text", "what a ranking ranks by (the score)", "attrs"),
    Name("factor", "label", "what the strata of a judge-bias table are (position, order, a "
         "covariate)", "column"),
    Name("stratum", "label", "a level of a factor (a covariate's value or bin)", "column"),
    Name("judge_first", "probability", "share of the judge's preferences for the first output",
         "column"),
    Name("judge_tie", "probability", "share of the judge's ties", "column"),
    Name("judge_second", "probability", "share of the judge's preferences for the second output",
         "column"),
    Name("lean", "number", "P(judge prefers first) - P(judge prefers second) in a human class",
         "column"),
    Name("lean_lower", "number", "lower bound of the lean's interval", "column"),
    Name("lean_upper", "number", "upper bound of the lean's interval", "column"),
    Name("agreement", "probability", "P(judge = the human class)", "column"),
    Name("agreement_lower", "probability", "lower bound of the agreement's interval", "column"),
    Name("agreement_upper", "probability", "upper bound of the agreement's interval", "column"),
    Name("joint_probability", "probability", "the posterior probability that every rank lies "
         "inside its interval at once", "attrs"),
    Name("ess_bulk", "number", "bulk effective sample size", "column"),
    Name("ess_tail", "number", "tail effective sample size", "column"),
    Name("fpr", "probability", "false-positive rate, 1 - eta", "column"),
    Name("auc", "probability", "area under the ROC curve", "column"),
    Name("threshold_balanced", "number", "the balanced threshold (a score cut)", "column"),
    Name("threshold_youden", "number", "Youden's threshold (a score cut)", "column"),
    Name("threshold_rule", "text", "the rule that chose the threshold", "attrs"),
    Name("sd_mean", "spread", "mean posterior sd over simulated experiments", "column"),
    Name("sd_sd", "spread", "spread of the posterior sd over simulated experiments", "column"),
    Name("bias", "number", "mean of posterior mean minus the true alpha", "column"),
    Name("bias_std_error", "spread", "Monte Carlo standard error of the bias", "column",
         replaces=("bias_se",)),
    Name("empirical_sd", "spread", "sd of the posterior means over simulated experiments",
         "column"),
    Name("rmse", "spread", "root mean squared error of the posterior means", "column"),
    Name("achieved", "number", "the detectable difference the size achieves", "column"),
    Name("attainable", "flag", "whether the target can be reached", "column"),
    Name("limit", "number", "the best difference the search can reach", "column"),
    Name("limited_by", "text", "what limits it", "column"),
    Name("cost", "number", "the cost of a split", "column"),
    Name("metric_1", "label", "the row metric of a matrix of metrics", "column"),
    Name("metric_2", "label", "the column metric of a matrix of metrics", "column"),
    # -- attrs ---------------------------------------------------------------------------------------
    Name("directions", "mapping", "the direction used for each term", "attrs"),
    Name("interval", "text", "how the interval is computed", "attrs"),
    Name("description", "text", "what the method does", "attrs"),
    Name("system_scores", "text", "how system scores were formed", "attrs"),
    Name("small_e", "count", "below this many disagreements the score interval is used", "attrs"),
    Name("n_switched", "count", "pairs switched to the score interval", "attrs"),
    Name("mean_diff", "mapping", "mean difference of each group against the others", "attrs"),
    Name("quantity", "text", "what a matrix holds", "attrs"),
    Name("label", "label", "the group or pair a posterior is of (\"A vs B\"), as text", "attrs"),
    Name("summary", "data", "the per-group summary of a long table", "attrs"),
    Name("probabilities", "labels", "columns shown as probabilities", "attrs"),
    Name("test", "text", "the test of a matrix of p-values", "attrs"),
    Name("log10_bf", "number", "log10 Bayes factor of dependence", "column attrs"),
    Name("verdict", "text", "what the Bayes factor says", "column attrs"),
    Name("decisive_log10_bf", "number", "|log10 BF| beyond which the verdict is decisive",
         "attrs"),
)

#: Renames where the old name is still a name elsewhere, with another meaning: (old, new, where).
#: The old name raises an error naming the new one in these places (arguments), or is gone from
#: these tables (columns and attrs keys).
RENAMED_IN: tuple[tuple[str, str, str], ...] = (
    ("prior", "share_concentration", "latent_posterior, fit_preferences (a Dirichlet "
     "concentration; prior is the Beta prior of alpha)"),
    ("rate_prior", "rate_concentration", "fit_latent, latent_posterior, fit_preferences (a "
     "Dirichlet concentration; rate_prior is the Beta prior of rho and eta)"),
    ("prior", "cell_concentration", "PreferenceConfusion.interval, FaviResult.interval and their "
     "attrs"),
    ("threshold", "min_prob", "LatentFit and PreferenceFit .ranking() and .plot() (a "
     "probability; threshold is a score cut)"),
    ("first, second", "scores_1, scores_2", "favoritism.preferences (arrays of scores; first "
     "and second are the system columns of fit_preferences)"),
    ("lower_is_better=True", "negated scores", "favoritism.preferences (lower_is_better names "
     "formula terms)"),
    ('rates="known"', 'rates={"rho": .., "eta": ..}', "binaryeval.plan and binaryeval plan "
     "--rates (known rates are given by their values, as in fit)"),
    ("system, opponent", "group_1, group_2", "FaviResult.by_system() columns (its summary is "
     "indexed by group)"),
    ("pooled", "pooled_favi", "FaviResult.by_system().attrs['summary'] and favoured()"),
    ("system (index)", "group_1, group_2", "the P(row > column) matrices of LatentFit.compare() "
     "and PreferenceFit.compare()"),
    ("direction", "directions", "CorrelationResult.to_frame().attrs, as in favi"),
    ("naive", "naive_basis", "PreferenceFit.to_frame().attrs (the naive column's ratings)"),
    ("threshold", "decisive_log10_bf", "the attrs of LatentFit/PreferenceFit.dependence()"),
    ("--ties", "--sign-test-ties", "binaryeval favi (the argument sign_test_ties)"),
    ("--force", "--overwrite", "every command that writes a file (the argument overwrite)"),
    ('order="r", order="formula"', 'order="estimate", order="input"',
     "CorrelationResult.significance_matrix (the values order takes in every fit)"),
)


def by_name() -> dict[str, Name]:
    """The list as a mapping ``name -> Name`` (names are unique).

    Examples
    --------
    >>> from binaryeval._vocabulary import by_name
    >>> by_name()["prior"].kind
    'beta_pair'
    """
    return {n.name: n for n in NAMES}


def renamed(where: str = _ARG) -> dict[str, str]:
    """Earlier spellings of the names used as ``where`` ("argument" or "column"): old -> new.

    Examples
    --------
    >>> from binaryeval._vocabulary import renamed
    >>> renamed("column")["prob_1_better"]
    'prob_greater'
    """
    return {old: n.name for n in NAMES if where in n.roles for old in n.replaces}


def table(where: str | None = None):
    """The vocabulary as a DataFrame: ``name``, ``kind``, ``value``, ``meaning``, ``where``, ``not``.

    Parameters
    ----------
    where : {"argument", "column", "attrs", "option"}, optional
        Only the names used there.

    Examples
    --------
    >>> from binaryeval._vocabulary import table
    >>> t = table("argument")
    >>> t.set_index("name").loc["rates", "kind"]
    'rates'
    """
    import pandas as pd

    rows = [{"name": n.name, "kind": n.kind, "value": KINDS[n.kind], "meaning": n.meaning,
             "where": ", ".join(sorted(n.roles)), "not": ", ".join(n.replaces)}
            for n in NAMES if where is None or where in n.roles]
    return pd.DataFrame(rows)
