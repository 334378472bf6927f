"""Reference posteriors from QuaPy's BayesianCC for tests/test_latent_engine.py.

Run (QuaPy 0.2.3 with its Bayesian extras: numpyro 0.22.0, jax 0.10.2, pystan 3.10.0):

    PYTHONPATH=.:<path with quapy, numpyro, jax> python studies/latent_quapy_reference.py

BayesianCC (Ziegler and Czyz 2024, "Bayesian quantification with black-box estimators", TMLR) is
the latent-truth model in which the labelled items inform only the confusion matrix ``P(C|Y)``:
``pi ~ Dirichlet(1)``, each row of ``P(C|Y) ~ Dirichlet(1)``, labelled counts multinomial per true
class, unlabelled counts ``Multinomial(N, pi P(C|Y))``.  QuaPy samples it with numpyro's NUTS in
``quapy.method._bayesian.sample_posterior_bayesianCC`` (what ``BayesianCC.aggregate`` calls); it is
called here directly on counts.  Inputs are passed as jax arrays: with numpy arrays this
numpyro/jax pair fails while validating the multinomial's support (TracerArrayConversionError).

Four runs (seeds 0-3) of 2,000 warm-up and 25,000 draws are pooled; the ESS and R-hat of the
pooled draws (binaryeval.latent.diagnostics, ArviZ's definitions) are stored with the summaries
in ``tests/reference/latent/quapy_bayesiancc_3class.json``.
"""

import json
import platform
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

DESIGNS = {
    "K3_clear": {"labeled": [[70, 20, 10], [15, 60, 25], [10, 20, 70]],
                 "unlabeled": [3000, 2500, 4500]},
    "K3_weak": {"labeled": [[45, 30, 25], [30, 40, 30], [20, 30, 50]],
                "unlabeled": [1200, 1000, 1800]},
}


def run(labeled, unlabeled, seed):
    import jax.numpy as jnp
    from quapy.method._bayesian import sample_posterior_bayesianCC

    out = sample_posterior_bayesianCC(jnp.asarray(unlabeled, dtype=jnp.float32),
                                      jnp.asarray(labeled, dtype=jnp.float32),
                                      num_warmup=2000, num_samples=25000,
                                      alpha=np.ones(len(labeled)), seed=seed)
    return np.asarray(out["P_test(Y)"], dtype=float)


def main():
    import jax
    import numpyro
    import quapy

    from binaryeval.latent import diagnostics

    results = []
    for name, design in DESIGNS.items():
        chains = np.stack([run(design["labeled"], design["unlabeled"], s) for s in range(4)])
        flat = chains.reshape(-1, chains.shape[-1])
        results.append({
            "name": name, **design, "chains": 4, "num_warmup": 2000, "num_samples": 25000,
            "mean": flat.mean(0).tolist(), "sd": flat.std(0).tolist(),
            "q025": np.quantile(flat, 0.025, axis=0).tolist(),
            "q975": np.quantile(flat, 0.975, axis=0).tolist(),
            "ess_bulk": diagnostics.ess_bulk(chains).tolist(),
            "ess_tail": diagnostics.ess_tail(chains).tolist(),
            "rhat": diagnostics.rhat(chains).tolist()})
    meta = {"source": "QuaPy BayesianCC (quapy.method._bayesian.sample_posterior_bayesianCC)",
            "quapy": quapy.__version__, "numpyro": numpyro.__version__,
            "jax": jax.__version__, "python": platform.python_version(),
            "script": "studies/latent_quapy_reference.py",
            "layout": "labeled[true class][predicted class]; unlabeled[predicted class]; "
                      "summaries per true class of the prevalence pi",
            "results": results}
    path = ROOT / "tests" / "reference" / "latent" / "quapy_bayesiancc_3class.json"
    path.write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
