"""The table pages: the dealer console (``dealer``), the pit boss's desk (``pit``) and the round
audit (``rounds``). Function views on the same services as the terminal API; each checks the role
(``casino.views.staff_page``) and the casino (``access.staff_table``)."""
