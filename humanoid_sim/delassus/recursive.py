"""The recursive Delassus algorithms of Chardonnet 2009 (§3.2, Algorithms 3–5) and their
operation counts (Tables 3.1–3.3).

Reference code, not on the simulator's step: kept to reproduce the thesis's comparison of the
algorithms and its operation counts (`benchmarks/delassus.py`, `test/sim/test_delassus.py`).

`RecursiveDelassus` computes Λ = J M⁻¹ Jᵀ of a `humanoid_sim.stages.contacts.ContactSet` on a
Pinocchio tree with the three algorithms of Chardonnet 2009, §3.2.1–3.2.3: "initial" = 3m unit-force
ABA passes over the whole tree, "chang_khatib" = Ω recursion through L and nearest common ancestors,
"new" = 6C unit-wrench ABA passes restricted to the branches holding contact bodies. Operation
counters run inside the recursions (`humanoid_sim.delassus.recursive_kernels`), and a selector
("auto") picks the cheaper of Chang–Khatib and new from counts predicted from the model's tree for
the current contact configuration (the thesis's hybrid, Chardonnet 2009, §3.2.4). Every method is
checked against `humanoid_sim.delassus.cholesky.delassus_dense` (test_delassus.py). The simulator
itself uses the Cholesky path (`humanoid_sim.delassus.cholesky.CholeskyDelassus`).

`thesis_operation_counts`: Tables 3.1–3.3 of the thesis as formulas (Chardonnet 2009, §3.2.1–3.2.3).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import SolverError
from humanoid_sim.delassus.recursive_kernels import _aba_quantities, _lam_initial, _omega_ck, _omega_new, _project
from humanoid_sim.stages.contacts import ContactSet, contact_projectors

__all__ = [
    "RecursiveDelassus",
    "METHODS",
    "thesis_operation_counts",
    "THESIS_HRP2_STANDING",
    "THESIS_SAME_BRANCH",
]


# --------------------------------------------------------------------------- thesis tables
#: The thesis's worked HRP-2 example (Chardonnet 2009, §3.2.4): HRP-2 standing on its two feet.
THESIS_HRP2_STANDING = dict(C=2, m=8, s=12, beta_m=48, alpha_C=12, beta_C=12)
#: Same-branch case (right hand + right forearm, Chardonnet 2009, §3.2.4, Fig. 3.13–3.14). The
#: thesis prints only the totals 6 323 / 7 590, not the parameters. These are OUR reconstruction:
#: the unique integer solution with C = 2 of Tables 3.2/3.3 = (6 323, 7 590) over m ≤ 16,
#: s, α_C < 30, β_C < 40 (searched exhaustively; see test_delassus.py).
THESIS_SAME_BRANCH = dict(C=2, m=8, s=6, beta_m=None, alpha_C=1, beta_C=11)


def thesis_operation_counts(C, m, s, beta_m=None, alpha_C=None, beta_C=None) -> dict:
    """Operation counts of Tables 3.1 (initial), 3.2 (Chang–Khatib), 3.3 (new) of Chardonnet 2009
    (§3.2.1–3.2.3). Returns
    {method: (mul_div, add_sub, total)} for the methods whose parameters are given."""
    proj = 27 * m * (m + 1) // 2  # m (m + 1) is always even
    out = {}
    if beta_m is not None:
        md = 144 * m + 39 * s * m + 36 * beta_m + proj
        ad = 99 * m + 36 * s * m + 21 * beta_m + proj
        out["initial"] = (md, ad, md + ad)
    if alpha_C is not None:
        md = 286 + 153 * s + 72 * alpha_C + 54 * C * m + proj
        ad = 235 + 179 * s + 66 * alpha_C + 54 * C * m + proj
        out["chang_khatib"] = (md, ad, md + ad)
    if beta_C is not None:
        md = 252 * C + 78 * C * s + 72 * beta_C + 54 * C * m + proj
        ad = 180 * C + 72 * C * s + 42 * beta_C + 54 * C * m + proj
        out["new"] = (md, ad, md + ad)
    return out


METHODS = ("initial", "chang_khatib", "new")


class RecursiveDelassus:
    """The thesis's three recursive Λ algorithms on a Pinocchio model (Chardonnet 2009, §3.2).

    >>> rd = RecursiveDelassus(model)
    >>> rd.prepare(data, q)                    # free-motion articulated inertias (shared)
    >>> Lam, counts = rd.compute(contacts, "auto")   # or "initial", "chang_khatib", "new"
    `counts` = (mul_div, add_sub) performed by the recursion (Ω part + projection).
    `rd.last_method` tells what "auto" chose. `rd.predict_counts(contacts, method)` gives the
    same counts from the tree structure alone (no numerics); the selector uses it.
    """

    def __init__(self, model):
        self.model = model
        self.parent = np.array(model.parents, np.int64)
        self.idx_v = np.array([j.idx_v if i else 0 for i, j in enumerate(model.joints)], np.int64)
        self.nvj = np.array([j.nv if i else 0 for i, j in enumerate(model.joints)], np.int64)
        nj = model.njoints
        self.U = np.zeros((nj, 6, 6))
        self.Dinv = np.zeros((nj, 6, 6))
        self.SD = np.zeros((nj, 6, 6))
        self.PU = np.zeros((nj, 6, 6))
        self.mass = np.array([I.mass for I in model.inertias])
        self.lever = np.array([I.lever for I in model.inertias])
        self.inertia = np.array([I.inertia for I in model.inertias])
        self.S = None
        self._struct_cache: dict = {}
        self.last_method = None

    # ---- configuration-dependent, shared by all methods
    def prepare(self, data, q):
        """World-frame motion subspaces (pin.computeJointJacobians, which also updates
        data.oMi) and articulated inertias at q (our own ABA backward pass, numba)."""
        m = self.model
        pin.computeJointJacobians(m, data, q)
        self.S = np.ascontiguousarray(data.J)
        oMi = np.array([M.homogeneous for M in data.oMi])
        self.IA = _aba_quantities(
            oMi,
            self.mass,
            self.lever,
            self.inertia,
            self.parent,
            self.S,
            self.idx_v,
            self.nvj,
            self.U,
            self.Dinv,
            self.SD,
            self.PU,
        )

    # ---- structure of a contact configuration
    def _ancestors(self, j):
        out = []
        while j > 0:
            out.append(j)
            j = self.parent[j]
        return out[::-1]  # root-side first

    def structure(self, contacts: ContactSet):
        """Contact bodies, visit lists and common-ancestor paths of a contact configuration (cached
        per joint_a/joint_b pattern: they depend on the tree only)."""
        key = contacts.joint_a.tobytes() + b"|" + contacts.joint_b.tobytes()
        st = self._struct_cache.get(key)
        if st is not None:
            return st
        bodies = sorted(set(contacts.joint_a.tolist()) | {j for j in contacts.joint_b.tolist() if j > 0})
        cb = np.array(bodies, np.int64)
        pos = {b: i for i, b in enumerate(bodies)}
        m = contacts.m
        side_body = np.zeros((m, 2), np.int64)
        side_joint = np.zeros((m, 2), np.int64)
        side_sign = np.zeros((m, 2))
        nside = np.zeros(m, np.int64)
        for c in range(m):
            side_body[c, 0], side_joint[c, 0], side_sign[c, 0] = pos[contacts.joint_a[c]], contacts.joint_a[c], 1.0
            nside[c] = 1
            if contacts.joint_b[c] > 0:
                side_body[c, 1], side_joint[c, 1], side_sign[c, 1] = pos[contacts.joint_b[c]], contacts.joint_b[c], -1.0
                nside[c] = 2
        anc = [self._ancestors(b) for b in bodies]
        # new method: forward visit list for body ii = union of branches of bodies jj ≥ ii
        ptr = [0]
        visit = []
        for ii in range(len(bodies)):
            s = sorted(set().union(*[set(anc[jj]) for jj in range(ii, len(bodies))]))
            visit += s
            ptr.append(len(visit))
        visit_all = sorted(set().union(*[set(a) for a in anc])) if bodies else []
        # Chang–Khatib pair paths through the nearest common ancestor
        pair_ptr = [0]
        up, down = [], []
        for ii in range(len(bodies)):
            for jj in range(ii + 1, len(bodies)):
                ai, aj = anc[ii], anc[jj]
                k = 0
                while k < min(len(ai), len(aj)) and ai[k] == aj[k]:
                    k += 1
                h = ai[k - 1] if k > 0 else 0
                upl = ai[k:]  # from h's child down to i
                dnl = aj[k:]
                L = max(len(upl), len(dnl))
                up += [h] + upl + [-1] * (L - len(upl))
                down += [-1] + dnl + [-1] * (L - len(dnl))
                pair_ptr.append(len(up))
        st = dict(
            cb=cb,
            side_body=side_body,
            side_joint=side_joint,
            side_sign=side_sign,
            nside=nside,
            visit_ptr=np.array(ptr, np.int64),
            visit=np.array(visit, np.int64),
            visit_all=np.array(visit_all, np.int64),
            pair_ptr=np.array(pair_ptr, np.int64),
            pair_up=np.array(up, np.int64),
            pair_down=np.array(down, np.int64),
            anc=anc,
        )
        self._struct_cache[key] = st
        return st

    # ---- predicted counts (from the tree only), mirroring the kernels' counters
    def predict_counts(self, contacts: ContactSet, method: str):
        """(mul_div, add_sub) that `compute` performs with ``method``, from the tree structure alone."""
        st = self.structure(contacts)
        nv = self.nvj
        md = ad = 0

        def accel(n, ncol, has_u):
            return (
                6 * n * ncol + n * n * ncol + 6 * n * ncol,
                (6 * n * ncol if has_u else 5 * n * ncol) + n * (n - 1) * ncol + 6 * n * ncol,
            )

        def back(n, ncol):
            return 12 * n * ncol, 11 * n * ncol

        m = contacts.m
        if method == "initial":
            nsides = st["nside"]
            for c in range(m):
                for k in range(1, self.model.njoints):
                    x, y = back(nv[k], 3)
                    md, ad = md + x, ad + y + (18 if self.parent[k] > 0 else 0)
                    x, y = accel(nv[k], 3, True)
                    md, ad = md + x, ad + y
                for d in range(c, m):
                    md += 54 * nsides[d]
                    ad += 54 * nsides[d]
            return int(md), int(ad)
        if method == "new":
            C = len(st["cb"])
            for ii in range(C):
                for k in st["anc"][ii]:
                    x, y = back(nv[k], 6)
                    md, ad = md + x, ad + y
                onp = set(st["anc"][ii])
                for t in range(st["visit_ptr"][ii], st["visit_ptr"][ii + 1]):
                    k = st["visit"][t]
                    x, y = accel(nv[k], 6, k in onp)
                    md, ad = md + x, ad + y
        elif method == "chang_khatib":
            for k in st["visit_all"]:
                n = nv[k]
                md += 36 * n + 6 * n * n + 36 * n + 6 * n * n + 21 * n + 21 * n
                ad += 30 * n + 5 * n * n + 36 * (n - 1) + 6 * n * (n - 1) + 21 * (n - 1) + 63 + 21 * n
            pp, up, dn = st["pair_ptr"], st["pair_up"], st["pair_down"]
            for p in range(len(pp) - 1):
                for t in range(pp[p] + 1, pp[p + 1]):
                    for k in (up[t], dn[t]):
                        if k >= 0:
                            md += 72 * nv[k]
                            ad += 66 * nv[k]
        else:
            raise SolverError(f"delassus: field 'method' must be one of {METHODS + ('auto',)}; value {method!r}")
        ns = st["nside"]
        for c in range(m):
            for d in range(c, m):
                md += 171 * ns[c] * ns[d]
                ad += 144 * ns[c] * ns[d]
        return int(md), int(ad)

    def select(self, contacts: ContactSet) -> str:
        """The cheaper (predicted total operations) of Chang–Khatib and new; ties go to new.
        Cached per contact configuration (the counts depend on the tree and the contact bodies
        only, not on q)."""
        st = self.structure(contacts)
        sel = st.get("selected")
        if sel is None:
            ck = sum(self.predict_counts(contacts, "chang_khatib"))
            nw = sum(self.predict_counts(contacts, "new"))
            sel = st["selected"] = "new" if nw <= ck else "chang_khatib"
        return sel

    # ---- compute
    def compute(self, contacts: ContactSet, method: str = "auto"):
        """(Λ (3m, 3m), (mul_div, add_sub)) with ``method`` (initial, chang_khatib, new or auto);
        `prepare` must have been called at the configuration."""
        if self.S is None:
            raise SolverError("delassus: RecursiveDelassus.prepare(data, q) must be called before compute()")
        if method == "auto":
            method = self.select(contacts)
        if method not in METHODS:
            raise SolverError(f"delassus: field 'method' must be one of {METHODS + ('auto',)}; value {method!r}")
        self.last_method = method
        st = self.structure(contacts)
        X = contact_projectors(contacts.frames, contacts.points)
        m = contacts.m
        Lam = np.zeros((3 * m, 3 * m))
        cnt = np.zeros(2, np.int64)
        if m == 0:
            return Lam, (0, 0)
        # the tree and its factorisation after `update`, as the initial and new kernels take them
        tree = (self.parent, self.idx_v, self.nvj, self.S, self.U, self.Dinv, self.PU)
        if method == "initial":
            _lam_initial(
                *tree,
                X,
                st["side_joint"],
                st["side_sign"],
                st["nside"],
                Lam,
                cnt,
            )
        else:
            C = len(st["cb"])
            Omega = np.zeros((C, C, 6, 6))
            if method == "new":
                _omega_new(
                    *tree,
                    st["cb"],
                    st["visit_ptr"],
                    st["visit"],
                    Omega,
                    cnt,
                )
            else:
                _omega_ck(
                    self.parent,
                    self.idx_v,
                    self.nvj,
                    self.S,
                    self.U,
                    self.SD,
                    st["cb"],
                    st["visit_all"],
                    st["pair_ptr"],
                    st["pair_up"],
                    st["pair_down"],
                    Omega,
                    cnt,
                )
            _project(X, st["side_body"], st["side_sign"], st["nside"], Omega, Lam, cnt)
        return Lam, (int(cnt[0]), int(cnt[1]))
