"""Who signs what in the pit's accounting: the roles of a count's signatures and the permission
of each, those of a drop count's and of each step of a slip; and the subjects of the accounting's
four-eyes approvals (``casino.Approval.subject_type``)."""

from __future__ import annotations

from accounting.models import DropSignatureRole, SignatureRole, SlipStep

COUNT_ROLES = (SignatureRole.DEALER, SignatureRole.PIT_BOSS)

# The subjects of the accounting's four-eyes approvals (``casino.Approval.subject_type``).
SLIP_SUBJECT = "accounting.slip"
INVESTIGATION_SUBJECT = "accounting.varianceinvestigation"
SETTINGS_SUBJECT = "accounting.accountingsettings"
# Who signs what. The permission of each role of a count's signatures (a user holding two signs
# in the first missing of the services' order, never twice):
ROLE_PERMISSIONS: dict[str, str] = {
    SignatureRole.DEALER: "run_table",
    SignatureRole.PIT_BOSS: "supervise_pit",
    SignatureRole.CASHIER: "operate_cage",
}
# the permissions of each signature of a drop count, in the order a user holding both signs them;
DROP_ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    DropSignatureRole.COUNT_TEAM: ("operate_cage",),
    DropSignatureRole.VERIFIER: ("supervise_pit", "sign_gaming_day"),
}
DROP_ROLE_ORDER = (DropSignatureRole.COUNT_TEAM, DropSignatureRole.VERIFIER)
# and the permissions of each step of a slip after its request (a void's proposal: its decision is
# a four-eyes approval, kind slip_void). Nobody signs two steps of one slip in a row
# (``same_person_signed_twice``).
SLIP_STEP_PERMISSIONS: dict[str, tuple[str, ...]] = {
    SlipStep.ISSUED: ("operate_cage",),
    SlipStep.RECEIVED: ("run_table", "supervise_pit"),
    SlipStep.VOID_PROPOSED: ("supervise_pit", "operate_cage"),
}
