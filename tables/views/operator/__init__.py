"""The operator's configuration pages (``/operator/``): tables (create, edit, the history of their
configuration versions side by side), rule sets and side-bet paytables (a new version from an
existing one), the house edge of each choice where it is made, and the approvals a second person
gives (``/operator/approvals/``, for pit bosses and operators): ``home``, ``table_config``,
``rule_sets`` (with the paytables), ``approvals``; what they share is ``common``.

Every change is one service call of ``tables.services`` (``table_create``,
``table_config_change``, ``rule_set_version_create``, ``paytable_version_create`` and their
approvals); a refusal redraws the form with the reason and a 4xx status, and changes nothing.
"""
