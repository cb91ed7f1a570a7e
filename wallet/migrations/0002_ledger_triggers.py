"""The database itself keeps the ledger honest:

- postings and transfers are append-only: UPDATE, DELETE and TRUNCATE are refused;
- a DEFERRABLE INITIALLY DEFERRED constraint trigger checks, at commit, that every transfer that
  received a posting in the transaction sums to zero, and refuses the whole transaction otherwise.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION wallet_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% of % refused: the ledger is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER wallet_posting_append_only
    BEFORE UPDATE OR DELETE ON wallet_posting
    FOR EACH ROW EXECUTE FUNCTION wallet_refuse_change();
CREATE TRIGGER wallet_posting_no_truncate
    BEFORE TRUNCATE ON wallet_posting
    FOR EACH STATEMENT EXECUTE FUNCTION wallet_refuse_change();
CREATE TRIGGER wallet_transfer_append_only
    BEFORE UPDATE OR DELETE ON wallet_transfer
    FOR EACH ROW EXECUTE FUNCTION wallet_refuse_change();
CREATE TRIGGER wallet_transfer_no_truncate
    BEFORE TRUNCATE ON wallet_transfer
    FOR EACH STATEMENT EXECUTE FUNCTION wallet_refuse_change();

CREATE OR REPLACE FUNCTION wallet_check_transfer_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total bigint;
BEGIN
    SELECT COALESCE(SUM(amount_minor), 0) INTO total
        FROM wallet_posting WHERE transfer_id = NEW.transfer_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'transfer % does not balance: its postings sum to %', NEW.transfer_id, total
            USING ERRCODE = 'check_violation', CONSTRAINT = 'wallet_transfer_balanced';
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER wallet_transfer_balanced
    AFTER INSERT ON wallet_posting
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_check_transfer_balanced();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS wallet_transfer_balanced ON wallet_posting;
DROP TRIGGER IF EXISTS wallet_transfer_no_truncate ON wallet_transfer;
DROP TRIGGER IF EXISTS wallet_transfer_append_only ON wallet_transfer;
DROP TRIGGER IF EXISTS wallet_posting_no_truncate ON wallet_posting;
DROP TRIGGER IF EXISTS wallet_posting_append_only ON wallet_posting;
DROP FUNCTION IF EXISTS wallet_check_transfer_balanced();
DROP FUNCTION IF EXISTS wallet_refuse_change();
"""


def forward(apps, schema_editor):
    # A cursor without parameters: the '%' of RAISE formats must reach PostgreSQL as they are.
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FORWARD)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("wallet", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
