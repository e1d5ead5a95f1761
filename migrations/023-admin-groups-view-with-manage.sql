-- As in API Umbrella, a group granting user_manage grants user_view too, and
-- one granting admin_manage admin_view: its admin API refuses a group
-- without them. The groups made before say so now. Nobody gains anything:
-- user_manage already showed the API users and admin_manage the admin
-- accounts that the view permissions show, and an admin_manage holder's
-- managing a group counts a view permission as held where its manage
-- permission is (src/admin-groups/manage-policy.ts).
UPDATE admin_groups SET permission_ids = json_insert(permission_ids, '$[#]', 'user_view')
  WHERE EXISTS (SELECT 1 FROM json_each(admin_groups.permission_ids) WHERE value = 'user_manage')
    AND NOT EXISTS (SELECT 1 FROM json_each(admin_groups.permission_ids) WHERE value = 'user_view');
UPDATE admin_groups SET permission_ids = json_insert(permission_ids, '$[#]', 'admin_view')
  WHERE EXISTS (SELECT 1 FROM json_each(admin_groups.permission_ids) WHERE value = 'admin_manage')
    AND NOT EXISTS (SELECT 1 FROM json_each(admin_groups.permission_ids) WHERE value = 'admin_view');
